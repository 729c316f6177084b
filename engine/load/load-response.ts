import type { Kysely } from "kysely";
import { keyOf, lastPerKey, type WarehouseTx } from "../../connectors/warehouse/bulk.js";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import { retryDeadlock } from "../../connectors/warehouse/retry-deadlock.js";
import type { TableDef } from "../../schema/table.js";
import { finishLoaded, insertCalls } from "../../store/calls.js";
import { countLoad } from "../../store/loads.js";
import { insertRejects } from "../../store/rejects.js";
import { watchSettings } from "../../store/watches.js";
import type { ParamValues } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import type { CompiledMapping } from "../normalize/mapping.js";
import type { Normalised, Reject, Row } from "../normalize/row.js";
import { type HistoryCounts, writeHistory } from "./history.js";
import { alertOnVersions } from "./watches/evaluate.js";
import { comparedColumns } from "./watches/versions.js";
import { deleteChildren, upserts, writeRows } from "./write-rows.js";

/** What the ledger records with an answer's rows. */
export type AnswerLedger =
  /** A paid call, its answer kept on arrival (`answered`, keep-answers.ts): its ledger row finished as loaded. */
  | { kind: "paid"; callId: number }
  /** A stored answer reused: a `cached` ledger row, nothing stored again. */
  | { kind: "cached" }
  /** Another run's answer to the same request, awaited while it was in flight: a `shared` ledger row. */
  | { kind: "shared" }
  /** Rows only (the benchmark's load figure, tests). */
  | { kind: "none" };

/** One answer to load: the call it answers, its data, when it arrived, and its ledger entry. */
export interface Answer {
  call: PlannedCall;
  data: unknown;
  receivedAt: string;
  ledger: AnswerLedger;
}

export interface LoadTarget {
  pipeline: LoadedPipeline;
  params: ParamValues;
  mapping: CompiledMapping;
  /** The load (skillsync_loads) these answers belong to: its rows carry it, its counts grow. */
  loadId?: number | undefined;
}

export interface Loaded {
  rows: number;
  rejected: number;
  /** Why the first rejected record was rejected (the rest are in skillsync_rejects). */
  firstReject?: string | undefined;
}

/**
 * Loads several answers of one pipeline in ONE transaction: rows of every table, rejects, stored
 * answers and ledger rows that record each load. A crash leaves all of it or none.
 * The tables end as if the answers had been loaded one after another: rows are written in answer
 * order (the last row of a key wins) and, in `merge` mode, a parent's children come from the last
 * answer that has the parent. Returns the totals counted as per-answer loads would count them.
 *
 * @example await loadAnswers(w, compiled, runId, [{ call, data, receivedAt, ledger: { kind: "cached" } }]);
 */
export async function loadAnswers(
  w: Warehouse,
  c: LoadTarget,
  runId: string,
  answers: readonly Answer[],
  /** Runs inside the load's transaction with what it loaded: bookkeeping that must commit with the rows. */
  alongside?: ((db: Kysely<AnyDB>, loaded: Loaded) => Promise<void>) | undefined,
): Promise<Loaded> {
  const { mapping } = c;
  const started = performance.now();
  const each = answers.map((a) =>
    mapping.normalise(a.data, {
      input: a.call.input,
      request: a.call.body,
      params: c.params,
      observedAt: a.receivedAt,
      runId,
      loadId: c.loadId,
      skill: c.pipeline.skill,
      data: a.data,
    }),
  );
  const merged = mergeNormalised(mapping, each);
  // Columns the data brings are added before the transaction: DDL racing inside one would abort it.
  const tables = mapping.infer ? await mapping.infer.apply(w, merged) : mapping;
  // Answers and reservations that came in while a long normalising ran go before this transaction
  // holds the database (SQLite writes block the event loop until the commit). A short one is not
  // worth a turn of the event loop (~40 µs, as much as normalising 14 rows).
  if (performance.now() - started > 1) await new Promise<void>((resume) => setImmediate(resume));
  let counts: number[] = [];
  const group = { c, runId, answers, each, merged, tables };
  await retryDeadlock(() =>
    w.transaction(async (tx) => {
      counts = await writeGroup(tx, group, alongside);
    }),
  );
  return {
    rows: counts.reduce((a, b) => a + b, 0),
    rejected: merged.rejects.length,
    firstReject: merged.rejects[0]?.reason,
  };
}

/** A group of answers normalised, merged and ready to write. */
interface NormalisedGroup {
  c: LoadTarget;
  runId: string;
  answers: readonly Answer[];
  each: readonly Normalised[];
  merged: ReturnType<typeof mergeNormalised>;
  tables: Pick<CompiledMapping, "table" | "children">;
}

/**
 * Inside the load's transaction: the rows of every table, the load's counts, the rejects and the
 * ledger rows that record each answer's load. Returns each answer's rows.
 */
async function writeGroup(
  tx: WarehouseTx,
  g: NormalisedGroup,
  alongside: ((db: Kysely<AnyDB>, loaded: Loaded) => Promise<void>) | undefined,
): Promise<number[]> {
  const { c, answers, merged, tables } = g;
  const { mapping, pipeline } = c;
  const m = { ...tables, volatile: mapping.volatile, mode: mapping.mode };
  // The watches of a history table, read first: the writer then keeps what they compare.
  const watches =
    mapping.mode === "history" && c.loadId !== undefined ? await watchSettings(tx.db, tables.table.name) : [];
  const written = await writeTables(
    tx,
    m,
    merged.rows,
    watches.length ? comparedColumns(m, watches) : undefined,
  );
  // One answer: what was written is its count. Several: each as its own load would have written
  // (history: the group's versions are counted on its last answer).
  const counts =
    answers.length === 1
      ? [written.rows]
      : written.history
        ? answers.map((_, i) => (i === answers.length - 1 ? written.rows : 0))
        : answerCounts(g.each, written.rows, [tables.table, ...tables.children], mapping.mode);
  if (c.loadId !== undefined) {
    const h = written.history;
    // Watches of the table see what this transaction changed, and their alerts commit with it.
    if (h)
      await alertOnVersions(tx.db, m, h.written, watches, {
        loadId: c.loadId,
        runId: g.runId,
      });
    await countLoad(tx.db, c.loadId, {
      rowsInserted: written.rows,
      versionsNew: h?.versions ?? 0,
      unchanged: h?.unchanged ?? 0,
      closed: h?.closed ?? 0,
    });
  }
  await insertRejects(
    tx.db,
    g.runId,
    pipeline.name,
    merged.rejects.map((r) => ({ ...r, hash: answers[r.answer]!.call.hash })),
  );
  // Each answer's ledger row carries its load (`loaded_rows`): a resumed run does not load it again.
  await ledgerOf(tx.db, pipeline, g.runId, answers, counts);
  await alongside?.(tx.db, { rows: counts.reduce((a, b) => a + b, 0), rejected: merged.rejects.length });
  return counts;
}

/** Writes a group's rows into the parent table and its children as the mode says; returns what it wrote. */
async function writeTables(
  tx: WarehouseTx,
  m: Pick<CompiledMapping, "table" | "children" | "volatile" | "mode">,
  rows: Map<string, Row[]>,
  compare: readonly string[] | undefined,
): Promise<{ rows: number; history?: HistoryCounts }> {
  if (m.mode === "history") {
    const history = await writeHistory(tx, m, rows, { compare });
    return { rows: history.rows, history };
  }
  const parents = rows.get(m.table.name) ?? [];
  let written = await writeRows(tx, m.table, parents, m.mode);
  for (const child of m.children) {
    if (m.mode === "merge") await deleteChildren(tx, child, m.table.key, parents);
    written += await writeRows(tx, child, rows.get(child.name) ?? [], m.mode);
  }
  return { rows: written };
}

async function ledgerOf(
  db: Kysely<AnyDB>,
  p: LoadedPipeline,
  runId: string,
  answers: readonly Answer[],
  loadedRows: readonly number[],
): Promise<void> {
  await finishLoaded(
    db,
    answers.flatMap((a, i) =>
      a.ledger.kind === "paid" ? [{ id: a.ledger.callId, rows: loadedRows[i]! }] : [],
    ),
  );
  for (const kind of ["cached", "shared"] as const) await insertFree(db, p, runId, answers, loadedRows, kind);
}

/** The ledger rows of answers that cost nothing (reused from the store or from another run). */
async function insertFree(
  db: Kysely<AnyDB>,
  p: LoadedPipeline,
  runId: string,
  answers: readonly Answer[],
  loadedRows: readonly number[],
  kind: "cached" | "shared",
): Promise<void> {
  await insertCalls(
    db,
    answers.flatMap((a, i) =>
      a.ledger.kind === kind
        ? [
            {
              runId,
              pipeline: p.name,
              skill: p.skill,
              requestHash: a.call.hash,
              credits: 0,
              loadedRows: loadedRows[i]!,
            },
          ]
        : [],
    ),
    kind,
  );
}

/**
 * One Normalised for many answers, in answer order. In `merge` mode the children an answer brings
 * for a parent that a later answer brings again are dropped: loaded one by one, the later answer's
 * merge would have deleted them.
 */
function mergeNormalised(
  mapping: CompiledMapping,
  each: readonly Normalised[],
): { rows: Map<string, Row[]>; rejects: (Reject & { answer: number })[] } {
  const rejects = each.flatMap((n, answer) => n.rejects.map((r) => ({ ...r, answer })));
  if (each.length === 1) return { rows: each[0]!.rows, rejects };
  const rows = new Map<string, Row[]>();
  const parentName = mapping.table.name;
  const parentKey = keyOf(mapping.table.key);
  const lastWith = new Map<unknown, number>();
  // Whether a parent comes in two answers: only then are children dropped (and their keys made).
  let again = false;
  if (
    (mapping.mode === "merge" || mapping.mode === "history") &&
    mapping.table.key.length &&
    mapping.children.length
  ) {
    each.forEach((n, i) => {
      for (const r of n.rows.get(parentName) ?? []) {
        const k = parentKey(r);
        const seen = lastWith.get(k);
        if (seen !== undefined && seen !== i) again = true;
        lastWith.set(k, i);
      }
    });
  }
  for (const def of [mapping.table, ...mapping.children]) {
    const out: Row[] = [];
    const isChild = def !== mapping.table && again;
    each.forEach((n, i) => {
      for (const r of n.rows.get(def.name) ?? []) {
        if (isChild && (lastWith.get(parentKey(r)) ?? i) > i) continue;
        out.push(r);
      }
    });
    rows.set(def.name, out);
  }
  return { rows, rejects };
}

/**
 * Each answer's rows as its own load would write them. When the group wrote every row its answers
 * brought (no key twice, so no child dropped), that is each answer's own rows, and no key is made
 * again to count them.
 */
function answerCounts(
  each: readonly Normalised[],
  written: number,
  defs: readonly TableDef[],
  mode: CompiledMapping["mode"],
): number[] {
  const brought = each.map((n) => {
    let total = 0;
    for (const rows of n.rows.values()) total += rows.length;
    return total;
  });
  if (written === brought.reduce((a, b) => a + b, 0)) return brought;
  return each.map((n) => countRows(n, defs, mode));
}

/** An answer's rows as a load of that answer alone writes them (distinct keys for an upsert). */
function countRows(n: Normalised, defs: readonly TableDef[], mode: CompiledMapping["mode"]): number {
  let total = 0;
  for (const def of defs) {
    const rows = n.rows.get(def.name) ?? [];
    total += upserts(def, mode) ? lastPerKey(rows, def.key).length : rows.length;
  }
  return total;
}

/**
 * Normalises one response and writes it with its ledger entry in one transaction (`loadAnswers`
 * for a single answer).
 */
export function loadResponse(
  w: Warehouse,
  c: LoadTarget,
  call: PlannedCall,
  data: unknown,
  observedAt: string,
  runId: string,
  ledger: AnswerLedger = { kind: "none" },
): Promise<Loaded> {
  return loadAnswers(w, c, runId, [{ call, data, receivedAt: observedAt, ledger }]);
}
