import type { Warehouse } from "../../connectors/warehouse/open.js";
import { retryDeadlock } from "../../connectors/warehouse/retry-deadlock.js";
import { askInGroups } from "../../core/group-commit.js";
import { type CallEnd, finishAnswered } from "../../store/calls.js";
import { responseRows, upsertResponseRows } from "../../store/responses.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { partsToStore } from "./item-parts.js";
import { type PaidOutcome, succeeded } from "./paid-call.js";
import type { PlannedCall } from "./planned-calls.js";

/** A paid answer as it arrived: the call it answers, its ledger row and how the call went. */
export interface ArrivedAnswer {
  call: PlannedCall;
  data: unknown;
  /** The answer's body as received, `data` inside: stored as it is (null: `data` is written out). */
  text?: string | null;
  receivedAt: string;
  callId: number;
  traceId: string | null;
  end: CallEnd;
}

/**
 * Keeps paid answers the moment they arrive: each one's body is stored (with its items' parts, for
 * a batch split per item) and its ledger row marked `answered`, committed before the answer waits
 * for normalising and loading. A process killed after that pays nothing again: the restarted run
 * (or the next worker) finds the answer in the store. Answers arriving while one commit runs share
 * the next (group commit, core/group-commit.ts), so a busy run commits a few times per many
 * answers, never per load.
 *
 * @example
 * const keeper = answerKeeper(w, pipeline, runId);
 * await keeper.keep(arrived); // stored and `answered`: safe from a crash from here on
 */
export function answerKeeper(w: Warehouse, p: LoadedPipeline, runId: string) {
  const { ask } = askInGroups<ArrivedAnswer, void>({
    maxGroup: 64,
    commit: async (group) => {
      await keepGroup(
        w,
        p,
        runId,
        group.map((g) => g.item),
      );
      for (const g of group) g.resolve();
    },
  });
  return { keep: ask };
}

/** One commit for a group of arrived answers: their stored bodies and their ledger rows `answered`. */
async function keepGroup(
  w: Warehouse,
  p: LoadedPipeline,
  runId: string,
  group: ArrivedAnswer[],
): Promise<void> {
  const rows = responseRows(group.flatMap((a) => responsesOf(p, runId, a)));
  await retryDeadlock(() =>
    w.transaction(async (tx) => {
      await upsertResponseRows(tx.db, rows);
      await finishAnswered(
        tx.db,
        group.map((a) => ({ id: a.callId, end: a.end })),
      );
    }),
  );
}

/** The stored rows of one answer: the whole answer under its request, and each item's part under its own. */
function responsesOf(p: LoadedPipeline, runId: string, a: ArrivedAnswer) {
  const stored = { skill: p.skill, traceId: a.traceId, runId, receivedAt: a.receivedAt };
  // Each item's part too, in the same transaction: an item is fresh exactly when its batch is stored.
  const parts = partsToStore(p, a.call, a.data).map((part) => ({ ...stored, ...part }));
  const whole = { ...stored, hash: a.call.hash, request: a.call.body, data: a.data, envelopeText: a.text };
  return [whole, ...parts];
}

/**
 * The keep step of a paid call: its answer kept (`answerKeeper`) before it is loaded; gives the
 * data it brought and the answer to load, as the paid call it is.
 */
export async function keepPaid(
  run: { keeper: ReturnType<typeof answerKeeper> },
  call: PlannedCall,
  sent: Extract<PaidOutcome, { ok: true }>,
) {
  const { callId, result, receivedAt } = sent;
  const data = result.data ?? {};
  // A null `data` is kept as {} (what is loaded): the text as received would say null.
  const text = result.data === null ? null : (result.text ?? null);
  await run.keeper.keep({
    call,
    data,
    text,
    receivedAt,
    callId,
    traceId: result.traceId,
    end: succeeded(result),
  });
  return { data, answer: { call, data, receivedAt, ledger: { kind: "paid" as const, callId } } };
}
