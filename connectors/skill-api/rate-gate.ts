import { newRateRow, type RateRow, underDeclared, withRefusal, withSlot, withSuccesses } from "./rate-row.js";
import { sleep } from "./retry.js";

/**
 * Where an account's rate row lives: in this process's memory, or in the warehouse where every run
 * and worker using the same key reads and changes it (store/rate-limits.ts).
 */
export interface RateStore {
  /** Reads the row, applies `change` and writes it back, atomically against other processes. */
  update<T>(
    change: (row: RateRow, now: number) => { row: RateRow; out: T },
  ): Promise<{ row: RateRow; out: T }>;
}

/**
 * The store of a scope: "" for the account's own pace, `skill:<slug>` for a skill's declared limit
 * (a price file's `rateLimit`). `declared` starts (and caps) a new row's pace.
 */
export type RateStores = (scope: string, declared: number | null) => RateStore;

/** Stores in this process's memory: one client's runs share them. */
export function memoryRateStores(): RateStores {
  const rows = new Map<string, RateRow>();
  return (scope, declared) => ({
    update: async (change) => {
      const now = Date.now();
      const r = change(rows.get(scope) ?? newRateRow(declared, now), now);
      rows.set(scope, r.row);
      return r;
    },
  });
}

/** A skill's own declared limit: its calls are paced below it. */
export interface SkillRate {
  slug: string;
  /** Calls per second. */
  rate: number;
}

/** How often successes are added to the row (and a pace set by another process is learnt). */
const SYNC_MS = 250;

export interface RateGateOptions {
  /** The account's declared limit (`--rate`), calls per second. */
  declared: number | null;
  /** A run fails on the rate limit only when no call has succeeded for this long. */
  timeoutMs: number;
  /** Jitter source in [0, 1). */
  random: () => number;
}

/**
 * Paces one account's calls below its rate limit (docs/rate-limits.md). Unpaced until the API
 * refuses a call or a limit is declared; then each call takes a send slot at the account's pace,
 * which drops on each round of refusals and grows while calls succeed.
 *
 * @example
 * const sentAt = await gate.before(signal); // waits for this call's slot
 * gate.succeeded(); // or: await gate.refused(sentAt, retryAfterMs, signal)
 */
export class RateGate {
  #stores: RateStores;
  #store: RateStore;
  #skills = new Map<string, RateStore>();
  #pace: number | null = null;
  #syncedAt = 0;
  #successes = 0;
  #lastProgress = 0;
  #sends: number[] = [];
  #refusedAt: number[] = [];
  /** Refusals being written to the store: until they are, no call goes out unpaced. */
  #refusing = 0;
  /** Requests the API refused with 429, over this gate's life. */
  refusals = 0;

  constructor(
    stores: RateStores,
    private readonly options: RateGateOptions,
  ) {
    this.#stores = stores;
    this.#store = stores("", options.declared);
  }

  /** Moves the gate to shared stores (the warehouse's): from now on every process paces together. */
  share(stores: RateStores): void {
    this.#stores = stores;
    this.#store = stores("", this.options.declared);
    this.#skills.clear();
    this.#syncedAt = 0;
  }

  /**
   * Waits until this call may be sent. Returns when its slot was taken (ms since the epoch): a
   * call whose slot was given at a pace since lowered was not sent at the lowered pace, and its
   * refusal does not lower it again.
   */
  async before(signal?: AbortSignal, skill?: SkillRate): Promise<number> {
    if (!this.#lastProgress) this.#lastProgress = Date.now();
    // A skill's declared limit paces its calls whatever the account's pace (a slot of each).
    const skillAt = skill ? await this.#skillSlot(skill) : 0;
    const skillWait = skillAt - Date.now();
    if (skillWait > 0) await sleep(skillWait, signal);
    if (this.#pace === null) {
      // Answers arrive together: a 429 read in the same turn as the success that freed this call's
      // worker is seen before this call goes out unpaced.
      await new Promise<void>((resume) => setImmediate(resume));
      const now = Date.now();
      if (this.#pace === null && !this.#refusing && now - this.#syncedAt < SYNC_MS) {
        this.#sent(now);
        return now;
      }
    }
    const now = Date.now();
    const successes = this.#take();
    const { row, out: at } = await this.#store.update((r, t) => {
      const slot = withSlot(withSuccesses(r, successes, t), t);
      return { row: slot.row, out: slot.at };
    });
    this.#learn(row);
    const wait = at - Date.now();
    if (wait > 0) await sleep(wait, signal);
    this.#sent(Date.now());
    return now;
  }

  succeeded(): void {
    this.#successes++;
    this.#lastProgress = Date.now();
  }

  /**
   * A 429 for the call whose slot was taken at `sentAt`: the account's pace drops (once per round), and this call
   * waits Retry-After with up to half of it again as jitter, so the refused calls do not return
   * together. Returns false when no call has succeeded for the timeout, counted from the last
   * success or from `since` (when the refused call was first tried), whichever is later: the
   * caller gives up. An idle client meeting a 429 hours after its last success waits its timeout.
   */
  async refused(sentAt: number, retryAfterMs: number, since: number, signal?: AbortSignal): Promise<boolean> {
    this.refusals++;
    const successes = this.#take();
    this.#refusedAt.push(Date.now());
    this.#refusing++;
    // Refusals arrive together: those read in this turn count before what got through is judged.
    await new Promise<void>((resume) => setImmediate(resume));
    const unrefused = this.#unrefused();
    const { row } = await this.#store
      .update((r, t) => ({
        row: withRefusal(withSuccesses(r, successes, t), sentAt, t, unrefused, retryAfterMs || undefined),
        out: undefined,
      }))
      .finally(() => {
        this.#refusing--;
      });
    this.#learn(row);
    const wait = retryAfterMs * (1 + this.options.random() / 2);
    if (Date.now() + wait - Math.max(this.#lastProgress, since) > this.options.timeoutMs) return false;
    await sleep(wait, signal);
    return true;
  }

  #skillSlot(skill: SkillRate): Promise<number> {
    let store = this.#skills.get(skill.slug);
    if (!store) {
      store = this.#stores(`skill:${skill.slug}`, skill.rate);
      this.#skills.set(skill.slug, store);
    }
    return store
      .update((r, t) => {
        const slot = withSlot(underDeclared(r, skill.rate), t);
        return { row: slot.row, out: slot.at };
      })
      .then((r) => r.out);
  }

  /** The account's pace as last read: calls per second, or null while unpaced. */
  get pace(): number | null {
    return this.#pace;
  }

  #take(): number {
    const n = this.#successes;
    this.#successes = 0;
    return n;
  }

  #learn(row: RateRow): void {
    this.#pace = row.rate;
    this.#syncedAt = Date.now();
  }

  /** Remembers sends of the last second: before anything is answered, they say what got through. */
  #sent(at: number): void {
    this.#sends.push(at);
    while (this.#sends.length && this.#sends[0]! < at - 1000) this.#sends.shift();
  }

  /** This process's calls sent in the last second that were not refused. */
  #unrefused(): number {
    const since = Date.now() - 1000;
    this.#refusedAt = this.#refusedAt.filter((t) => t >= since);
    return Math.max(0, this.#sends.filter((t) => t >= since).length - this.#refusedAt.length);
  }
}
