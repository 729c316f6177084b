import { type GroupCommit, groupCommit } from "../../core/group-commit.js";
import { waiters } from "../../core/waiters.js";

const QUIET_TURNS = 4;

/**
 * Answers waiting to be loaded, written in groups: whatever arrives while one group's transaction
 * runs goes into the next one (group commit, core/group-commit.ts). A worker hands its answer over
 * and takes its next call at once, so calls keep going out while the database writes; `maxPending`
 * bounds what waits (memory stays flat, workers pause when the database is the slower side).
 *
 * `write` loads a group; when it throws, later groups are dropped (what was paid for is already
 * kept: keep-answers.ts), the first error is kept for `drain`, and `onError` is told.
 *
 * @example
 * const q = answerQueue({ write: (g) => loadAnswers(w, c, runId, g), maxPending: 16, maxGroup: 32, onError: stop });
 * await q.push(answer); // back as soon as there is room
 * await q.drain();      // everything pushed is loaded; throws the first write error
 */
export function answerQueue<T>(o: {
  write: (group: T[]) => Promise<void>;
  maxPending: number;
  maxGroup: number;
  onError: (err: unknown) => void;
  /** Resolves when no call waits to be sent (reservations.ts `idle`). */
  yieldTo?: (() => Promise<void>) | undefined;
}) {
  let failed = false;
  let error: unknown;
  const room = waiters();
  const yieldTo = o.yieldTo;
  const q: GroupCommit<T> = groupCommit<T>({
    maxGroup: o.maxGroup,
    // Calls go out first: a reservation waiting behind a group's rows would add to every call's time.
    ready: yieldTo && (() => callsFirst(yieldTo, q, o.maxPending)),
    taken: room.wakeAll,
    commit: async (group) => {
      if (!failed) await o.write(group);
    },
    failed: (_, err) => {
      failed = true;
      error = err;
      o.onError(err);
    },
  });
  return {
    async push(item: T): Promise<void> {
      q.add(item);
      while (q.waiting >= o.maxPending) await room.wait();
    },
    async drain(): Promise<void> {
      while (q.busy) await q.idle();
      if (failed) throw error;
    },
  };
}

/**
 * Waits while calls are being reserved. Answers of calls sent together come back together, and
 * each one's next call asks for its reservation a turn of the event loop after the last: so the
 * group waits until a turn has passed with no new answer and nothing reserving (a few turns at
 * most). Measured at C = 32: 0.90 → 0.925 of C / L. Not when the queue is full: then the
 * workers wait for it.
 */
async function callsFirst(
  idle: () => Promise<void>,
  q: GroupCommit<unknown>,
  maxPending: number,
): Promise<void> {
  for (let turn = 0; turn < QUIET_TURNS && q.waiting < maxPending; turn++) {
    await idle();
    const before = q.waiting;
    await new Promise<void>((resume) => setImmediate(resume));
    if (q.waiting === before) {
      await idle();
      return;
    }
  }
}
