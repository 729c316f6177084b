import { createHash } from "node:crypto";
import type { WarehouseTx } from "../../../connectors/warehouse/bulk.js";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { type LoadedPipeline, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { compileMapping } from "../../../engine/normalize/mapping.js";
import { preparePipelines } from "../../../engine/run/prepare.js";
import type { ColumnType, TableDef } from "../../../schema/table.js";
import { type AlertDraft, insertAlerts } from "../../../store/alerts.js";
import { setBudget } from "../../../store/budget-status.js";
import { eventIdOf, targetHash } from "../../../store/outbox.js";
import type { RunStatus, Trigger } from "../../../store/runs.js";
import { ensureStates } from "../../../store/schedule-state.js";
import { insertWatch } from "../../../store/watches.js";

/**
 * A warehouse that looks like months of real use, for the console's tests: the tables of two
 * built-in pipelines made by the product's own code, rows written straight into them (price
 * observations of many products over ~10 loads; legal-status versions with their events), and
 * the toolkit's tables filled consistently — runs, their call ledger, loads, rejects, outbox
 * events, budgets, schedule state and a watch's alerts. Everything is drawn from a seeded random
 * sequence, so two warehouses of one size hold the same data (but for the times, relative to `now`).
 */
export interface BigWarehouse {
  url: string;
  /** The instant the warehouse's history ends at: every run started in the `days` before it. */
  now: Date;
  /** Every run's id, oldest first. */
  runIds: string[];
  /** The change view over the price observations (one row per keyword, product and load). */
  priceTable: "marketplace_price_history";
  /** The table its rows come from. */
  priceSource: "marketplace_search_results";
  /** A product seen in (at least) 9 loads, its price moving: `versions` rows in `priceTable`. */
  priceKey: { keyword: string; asin: string; versions: number };
  /** The history table of legal status (its `_changes` view is what `skillsync changes` reads). */
  statusTable: "patent_legal_status";
  /** Its child table: a version's legal events. */
  statusEvents: "patent_legal_events";
  /** A patent with 5 versions, its status stepping through pending, granted and lapsed. */
  statusKey: string;
  /** The warehouse as the fixture opened it (owner login), for the tests' own reads. */
  warehouse: Warehouse;
  close(): Promise<void>;
}

export interface BigWarehouseSize {
  runs: number;
  /** Rows of the pipelines' tables: ~90 % price observations, the rest legal-status versions and events. */
  rows: number;
  /** Days of history before `now` (default 60). */
  days?: number;
  now?: Date;
}

const DAY_MS = 86_400_000;
const PRICE_LOADS = 10;
const STATUS_LOADS = 10;
const PRODUCTS_PER_KEYWORD = 500;
const PER_PAGE = 48;
/** The pipelines runs are spread over; the first two have rows in the warehouse. */
const PIPELINES = [
  "marketplace-search",
  "patent-legal-status",
  "patent-search",
  "patent-bibliography",
  "patent-family",
  "ip-tro-check",
] as const;
/** Credits of one paid call per pipeline (a multiple of 1/4, so sums stay exact in binary). */
const PRICE: Record<string, number> = {
  "marketplace-search": 1,
  "patent-legal-status": 0.5,
  "patent-search": 2,
  "patent-bibliography": 0.25,
  "patent-family": 0.75,
  "ip-tro-check": 3,
};
const WEBHOOK = targetHash("https://hooks.example.test/skillsync");

/** mulberry32: a small seeded generator, so the data is the same at every build. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    /** One of `weights`' keys, with those weights. */
    weighted: <K extends string>(weights: Partial<Record<K, number>>): K => {
      const entries = Object.entries(weights) as [K, number][];
      let r = next() * entries.reduce((s, [, w]) => s + w, 0);
      for (const [k, w] of entries) {
        r -= w;
        if (r < 0) return k;
      }
      return entries[entries.length - 1]![0];
    },
  };
}
type Random = ReturnType<typeof seeded>;

const iso = (ms: number) => new Date(ms).toISOString();
const hex = (...parts: unknown[]) => createHash("sha256").update(parts.join("|")).digest("hex");
const cents = (x: number) => Math.round(x * 100) / 100;

/** A table definition for the toolkit's own tables, so the product's bulk writer (COPY on Postgres) fills them. */
function toolkitDef(name: string, columns: Record<string, ColumnType>): TableDef {
  return { name, columns: Object.entries(columns).map(([n, type]) => ({ name: n, type })), key: [] };
}

/** Writes rows in slices (the writer binds every row of a call at once). */
async function writeAll(tx: WarehouseTx, def: TableDef, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 20_000) await tx.bulk.write(def, rows.slice(i, i + 20_000), "insert");
}

/** A row with every column of `def`: those not given are null. */
function full(def: TableDef, values: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of def.columns) row[c.name] = values[c.name] ?? null;
  return row;
}

// ---------------------------------------------------------------------------------------------
// The runs

interface PlannedRun {
  id: string;
  index: number;
  pipeline: string;
  trigger: Trigger;
  status: RunStatus;
  startedMs: number;
  finishedMs: number;
  /** Set for the runs that loaded the rows: the load's id once made. */
  loadId?: number;
  /** Rows its calls loaded, per call, for a load run (else drawn). */
  loadRows?: number[];
}

function planRuns(rnd: Random, n: number, nowMs: number, days: number): PlannedRun[] {
  const span = days * DAY_MS - 3_600_000;
  const starts = Array.from({ length: n }, () => nowMs - 3_600_000 - Math.floor(rnd.next() * span)).sort(
    (a, b) => a - b,
  );
  return starts.map((startedMs, index) => {
    const stamp = iso(startedMs).replace(/[-:T]/g, "").slice(0, 14);
    return {
      id: `r${stamp}-${hex("run", index).slice(0, 8)}`,
      index,
      pipeline: rnd.pick(PIPELINES),
      trigger: rnd.weighted<Trigger>({ schedule: 55, manual: 20, server: 15, mcp: 10 }),
      status: rnd.weighted<RunStatus>({ succeeded: 85, warnings: 6, failed: 5, ceiling: 2, interrupted: 2 }),
      startedMs,
      finishedMs: startedMs + rnd.int(5, 600) * 1000,
    };
  });
}

/** The runs that made the loads: evenly spread, scheduled and successful. */
function loadRuns(runs: PlannedRun[], pipeline: string, loads: number, phase: number): PlannedRun[] {
  const chosen: PlannedRun[] = [];
  for (let l = 0; l < loads; l++) {
    let i = Math.min(runs.length - 1, Math.floor(((l + phase) / loads) * runs.length));
    while (runs[i]!.loadRows) i = (i + 1) % runs.length;
    const r = runs[i]!;
    Object.assign(r, { pipeline, trigger: "schedule", status: "succeeded", loadRows: [] });
    chosen.push(r);
  }
  return chosen;
}

async function insertLoads(tx: WarehouseTx, runs: PlannedRun[]): Promise<void> {
  for (const r of runs) {
    const row = await tx.db
      .insertInto("skillsync_loads")
      .values({ run_id: r.id, pipeline: r.pipeline, started_at: iso(r.startedMs) })
      .returning("id")
      .executeTakeFirstOrThrow();
    r.loadId = Number(row.id);
  }
}

async function countLoad(
  tx: WarehouseTx,
  r: PlannedRun,
  c: { rows: number; versions?: number; unchanged?: number; closed?: number },
): Promise<void> {
  await tx.db
    .updateTable("skillsync_loads")
    .set({
      finished_at: iso(r.finishedMs),
      rows_inserted: c.rows,
      versions_new: c.versions ?? 0,
      unchanged: c.unchanged ?? 0,
      closed: c.closed ?? 0,
    })
    .where("id", "=", r.loadId!)
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Price observations: marketplace_search_results

const asinOf = (p: number) => `B0${p.toString(36).toUpperCase().padStart(8, "0")}`;
const keywordOf = (k: number) => `keyword ${String(k).padStart(4, "0")}`;

interface PriceShape {
  products: number;
  keywords: number;
  /** Products that miss one load (the load `p % PRICE_LOADS`), so the row count is the one asked. */
  skipping: number;
}

/** Products seen in 9 or 10 of the loads, as many as make `rows` rows (at least 10 of them). */
function priceShape(rows: number): PriceShape {
  if (rows < 10 * PRICE_LOADS) throw new Error(`bigWarehouse: ${rows} price rows are too few (at least 100)`);
  const products = Math.ceil(rows / (PRICE_LOADS - 0.5));
  return {
    products,
    keywords: Math.max(1, Math.round(products / PRODUCTS_PER_KEYWORD)),
    skipping: products * PRICE_LOADS - rows,
  };
}

/** The price key's prices over the loads: four falls of 10 % or more, for the watch's alerts. */
const KEY_PRICES = [40, 42.5, 35.99, 36.49, 31.99, 33, 29.5, 29.5, 25.99, 27.49];

/** Every product's price at every load: a random walk; product 0 falls by ≥ 10 % twice (the watch's alerts). */
function priceWalks(rnd: Random, products: number): Float64Array {
  const prices = new Float64Array(products * PRICE_LOADS);
  for (let p = 0; p < products; p++) {
    let price = cents(5 + rnd.next() * 195);
    for (let l = 0; l < PRICE_LOADS; l++) {
      if (l > 0 && rnd.next() < 0.6) price = cents(Math.max(1, price * (1 + (rnd.next() - 0.5) * 0.2)));
      prices[p * PRICE_LOADS + l] = price;
    }
  }
  for (let l = 0; l < PRICE_LOADS; l++) prices[l] = KEY_PRICES[l]!;
  return prices;
}

const present = (s: PriceShape, p: number, l: number) =>
  !(p >= s.products - s.skipping && l === p % PRICE_LOADS);

async function writePrices(
  tx: WarehouseTx,
  rnd: Random,
  def: TableDef,
  s: PriceShape,
  loads: PlannedRun[],
): Promise<void> {
  const prices = priceWalks(rnd, s.products);
  for (const [l, run] of loads.entries()) {
    for (let k = 0; k < s.keywords; k++) {
      const observedMs = run.startedMs + (k + 1) * 1000;
      const rows: Record<string, unknown>[] = [];
      for (let p = k; p < s.products; p += s.keywords) {
        if (!present(s, p, l)) continue;
        rows.push(
          priceRow(def, rnd, {
            p,
            k,
            l,
            i: rows.length,
            run,
            observedMs,
            price: prices[p * PRICE_LOADS + l]!,
          }),
        );
      }
      await writeAll(tx, def, rows);
      run.loadRows!.push(rows.length);
    }
    run.finishedMs = run.startedMs + (s.keywords + 2) * 1000;
    await countLoad(tx, run, { rows: run.loadRows!.reduce((a, b) => a + b, 0) });
  }
}

function priceRow(
  def: TableDef,
  rnd: Random,
  o: { p: number; k: number; l: number; i: number; run: PlannedRun; observedMs: number; price: number },
): Record<string, unknown> {
  const sponsored = o.p !== 0 && rnd.next() < 0.05;
  const old = rnd.next() < 0.2 ? cents(o.price * 1.25) : null;
  // Every column written out (not through `full`): a million of these are made.
  const row = {
    keyword: keywordOf(o.k),
    page: Math.floor(o.i / PER_PAGE) + 1,
    item_index: (o.i % PER_PAGE) + 1,
    observed_at: iso(o.observedMs),
    position: (o.i % PER_PAGE) + 1,
    asin: asinOf(o.p),
    title: `Product ${o.p} of ${keywordOf(o.k)}`,
    price_text: `$${o.price.toFixed(2)}`,
    price: o.price,
    old_price_text: old === null ? null : `$${old.toFixed(2)}`,
    old_price: old,
    rating: cents(3 + rnd.next() * 2),
    ratings: rnd.int(0, 20_000),
    monthly_sales_units: rnd.int(0, 5_000),
    sponsored,
    snap_ebt_eligible: false,
    image_url: null,
    price_unit: null,
    available_date: null,
    extra: null,
    asin_url: `https://www.example.test/dp/${asinOf(o.p)}`,
    run_id: o.run.id,
    loaded_at: iso(o.observedMs),
    load_id: o.run.loadId,
  };
  if (o.i === 0)
    for (const c of def.columns) if (!(c.name in row)) throw new Error(`bigWarehouse: no ${c.name}`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Legal status versions and events: patent_legal_status, patent_legal_events

const STEPS = [
  { simple: "pending", legal: "pending", code: "A", text: "Application published" },
  { simple: "active", legal: "granted", code: "B1", text: "Patent granted" },
  { simple: "active", legal: "granted", code: "FP", text: "Maintenance fee paid" },
  { simple: "inactive", legal: "lapsed", code: "EXP", text: "Lapsed for failure to pay maintenance fee" },
  { simple: "active", legal: "reinstated", code: "RE", text: "Reinstated after late payment" },
] as const;

const patentOf = (n: number) => `US${String(9_000_000 + n)}B2`;

/** A patent's versions: which loads made them (ascending), each with one more event than the last. */
interface Patent {
  pn: string;
  loads: number[];
}

/** Patents whose versions and events make exactly `rows` rows; patent 0 has 5 versions. */
function planPatents(rnd: Random, rows: number): Patent[] {
  const out: Patent[] = [];
  const rowsOf = (n: number) => 2 * n + (n * (n - 1)) / 2;
  let left = rows;
  while (left > 0) {
    let n = out.length === 0 ? 5 : rnd.int(1, 5);
    while (n > 1 && rowsOf(n) > left) n--;
    if (rowsOf(n) > left) n = 1;
    const loads = new Set<number>();
    while (loads.size < n) loads.add(out.length === 0 ? loads.size * 2 : rnd.int(0, STATUS_LOADS - 1));
    out.push({ pn: patentOf(out.length), loads: [...loads].sort((a, b) => a - b) });
    left -= Math.min(left, rowsOf(n));
  }
  return out;
}

/** The patents' versions and events; the last version written may have fewer events, to hit the count. */
async function writeStatuses(
  tx: WarehouseTx,
  patents: Patent[],
  defs: { parent: TableDef; events: TableDef },
  rows: number,
  loads: PlannedRun[],
): Promise<void> {
  let left = rows;
  const parents: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  const perLoad = loads.map(() => ({ rows: 0, versions: 0, closed: 0, known: 0 }));
  for (const pt of patents) {
    for (const [v, l] of pt.loads.entries()) {
      if (left <= 0) break;
      const run = loads[l]!;
      const from = iso(run.startedMs + 1000);
      const next = pt.loads[v + 1];
      const to = next === undefined ? null : iso(loads[next]!.startedMs + 1000);
      const nEvents = Math.min(v + 1, left - 1);
      const step = STEPS[Math.min(v, STEPS.length - 1)]!;
      parents.push(statusRow(defs.parent, pt, { v, run, from, to, step, nEvents }));
      for (let e = 0; e < nEvents; e++) events.push(eventRow(defs.events, pt, { e, run, from, to }));
      left -= 1 + nEvents;
      Object.assign(perLoad[l]!, {
        rows: perLoad[l]!.rows + 1 + nEvents,
        versions: perLoad[l]!.versions + 1,
        closed: perLoad[l]!.closed + (v > 0 ? 1 : 0),
      });
    }
    if (pt.loads[0] !== undefined) for (let l = pt.loads[0] + 1; l < STATUS_LOADS; l++) perLoad[l]!.known++;
  }
  await writeAll(tx, defs.parent, parents);
  await writeAll(tx, defs.events, events);
  await countStatusLoads(tx, loads, perLoad);
}

async function countStatusLoads(
  tx: WarehouseTx,
  loads: PlannedRun[],
  perLoad: { rows: number; versions: number; closed: number; known: number }[],
): Promise<void> {
  for (const [l, run] of loads.entries()) {
    const c = perLoad[l]!;
    // Each load asked again for every patent known before it: those without a new version were unchanged.
    const unchanged = Math.max(0, c.known - c.closed);
    const batches = Math.max(1, Math.ceil((c.versions + unchanged) / 100));
    run.loadRows = Array.from({ length: batches }, (_, i) =>
      i < batches - 1 ? Math.floor(c.rows / batches) : c.rows - Math.floor(c.rows / batches) * (batches - 1),
    );
    run.finishedMs = run.startedMs + (batches + 2) * 1000;
    await countLoad(tx, run, { rows: c.rows, versions: c.versions, unchanged, closed: c.closed });
  }
}

function statusRow(
  def: TableDef,
  pt: Patent,
  o: {
    v: number;
    run: PlannedRun;
    from: string;
    to: string | null;
    step: (typeof STEPS)[number];
    nEvents: number;
  },
): Record<string, unknown> {
  return full(def, {
    publication_number: pt.pn,
    patent_id: `patent/${pt.pn}/en`,
    simple_legal_status: o.step.simple,
    legal_status: o.step.legal,
    legal_date: iso(o.run.startedMs - 20 * DAY_MS).slice(0, 10),
    observed_at: o.from,
    run_id: o.run.id,
    loaded_at: o.from,
    load_id: o.run.loadId,
    valid_from: o.from,
    valid_to: o.to,
    version_hash: hex("v", pt.pn, o.v).slice(0, 22),
    children_hash: hex("c", pt.pn, o.nEvents).slice(0, 22),
  });
}

function eventRow(
  def: TableDef,
  pt: Patent,
  o: { e: number; run: PlannedRun; from: string; to: string | null },
): Record<string, unknown> {
  const step = STEPS[Math.min(o.e, STEPS.length - 1)]!;
  return full(def, {
    publication_number: pt.pn,
    position: o.e + 1,
    event_date: iso(o.run.startedMs - (30 - o.e) * DAY_MS).slice(0, 10),
    event_code: step.code,
    description: step.text,
    run_id: o.run.id,
    loaded_at: o.from,
    load_id: o.run.loadId,
    valid_from: o.from,
    valid_to: o.to,
  });
}

// ---------------------------------------------------------------------------------------------
// The call ledger, the runs' rows, rejects and outbox events

const CALLS = toolkitDef("skillsync_calls", {
  run_id: "text",
  pipeline: "text",
  skill: "text",
  request_hash: "text",
  outcome: "text",
  http_status: "integer",
  error_code: "text",
  error: "text",
  credits: "number",
  trace_id: "text",
  attempts: "integer",
  started_at: "timestamp",
  finished_at: "timestamp",
  elapsed_ms: "integer",
  loaded_rows: "integer",
});

interface Tally {
  planned: number;
  done: number;
  cached: number;
  shared: number;
  failed: number;
  credits: number;
  rows: number;
}

type Outcome = "succeeded" | "cached" | "shared" | "failed" | "interrupted";

function outcomeOf(rnd: Random, r: PlannedRun, i: number, n: number): Outcome {
  if (r.loadRows) return "succeeded";
  if (r.status === "failed" && i >= n - 2) return "failed";
  if (r.status === "interrupted" && i === n - 1) return "interrupted";
  return rnd.weighted<Outcome>({
    succeeded: 70,
    cached: 20,
    shared: 8,
    failed: r.status === "succeeded" ? 0 : 2,
  });
}

/** A run's ledger rows and what they add up to (the run's counters are these sums). */
function callsOf(rnd: Random, r: PlannedRun, skill: string): { rows: Record<string, unknown>[]; t: Tally } {
  const n = r.loadRows ? r.loadRows.length : rnd.int(5, 35);
  const t: Tally = { planned: n, done: 0, cached: 0, shared: 0, failed: 0, credits: 0, rows: 0 };
  const rows = Array.from({ length: n }, (_, i) => {
    const outcome = outcomeOf(rnd, r, i, n);
    const paid = outcome === "succeeded" || outcome === "interrupted";
    const credits = paid ? PRICE[r.pipeline]! : 0;
    const loaded =
      outcome === "failed" || outcome === "interrupted" ? null : (r.loadRows?.[i] ?? rnd.int(0, 40));
    t.done += outcome === "succeeded" ? 1 : 0;
    t.cached += outcome === "cached" ? 1 : 0;
    t.shared += outcome === "shared" ? 1 : 0;
    t.failed += outcome === "failed" ? 1 : 0;
    t.credits += credits;
    t.rows += loaded ?? 0;
    const at = r.startedMs + Math.floor(((r.finishedMs - r.startedMs) * i) / n);
    return callRow(r, skill, { i, outcome, credits, loaded, at });
  });
  return { rows, t };
}

function callRow(
  r: PlannedRun,
  skill: string,
  o: { i: number; outcome: Outcome; credits: number; loaded: number | null; at: number },
): Record<string, unknown> {
  const failed = o.outcome === "failed";
  return {
    run_id: r.id,
    pipeline: r.pipeline,
    skill,
    request_hash: hex("req", r.pipeline, o.outcome === "succeeded" ? r.index : r.index - 1, o.i).slice(0, 32),
    outcome: o.outcome,
    http_status: failed ? 502 : o.outcome === "interrupted" ? null : 200,
    error_code: failed ? "HTTP_502" : null,
    error: failed ? "the API answered 502 Bad Gateway three times" : null,
    credits: o.credits,
    trace_id: null,
    attempts: failed ? 3 : 1,
    started_at: iso(o.at),
    finished_at: o.outcome === "interrupted" ? null : iso(o.at + 180),
    elapsed_ms: o.outcome === "interrupted" ? null : 180,
    loaded_rows: o.loaded,
  };
}

const RUNS = toolkitDef("skillsync_runs", {
  id: "text",
  run_key: "text",
  pipelines: "json",
  params: "json",
  trigger: "text",
  status: "text",
  stop_reason: "text",
  error: "text",
  pid: "integer",
  host: "text",
  started_at: "timestamp",
  heartbeat_at: "timestamp",
  finished_at: "timestamp",
  calls_planned: "integer",
  calls_done: "integer",
  calls_cached: "integer",
  calls_failed: "integer",
  credits_spent: "number",
  rows_written: "integer",
  rows_rejected: "integer",
  calls_shared: "integer",
  columns_empty: "integer",
  members_unmapped: "integer",
  warnings: "json",
  items_reused: "integer",
  credits_saved: "number",
  invocation: "text",
  rate_limited: "integer",
  credits_estimated: "integer",
});

const STOP: Partial<Record<RunStatus, string>> = {
  ceiling: "the daily budget would be passed",
  interrupted: "the process stopped (SIGTERM)",
};

function runRow(rnd: Random, r: PlannedRun, t: Tally, rejects: number): Record<string, unknown> {
  const reused = !r.loadRows && rnd.next() < 0.15 ? rnd.int(1, 50) : 0;
  const warnings =
    r.status === "warnings" ? [`${rejects} record(s) rejected: see skillsync runs ${r.id}`] : null;
  return {
    id: r.id,
    run_key: `fixture:${r.index}`,
    pipelines: [r.pipeline],
    params: r.pipeline === "marketplace-search" ? { keyword: [keywordOf(r.index % 7)] } : {},
    trigger: r.trigger,
    status: r.status,
    stop_reason: STOP[r.status] ?? null,
    error: r.status === "failed" ? `${t.failed} call(s) failed: HTTP_502` : null,
    pid: 4000 + (r.index % 1000),
    host: "fixture-host",
    started_at: iso(r.startedMs),
    heartbeat_at: iso(r.finishedMs),
    finished_at: iso(r.finishedMs),
    calls_planned: t.planned,
    calls_done: t.done,
    calls_cached: t.cached,
    calls_failed: t.failed,
    credits_spent: t.credits,
    rows_written: t.rows,
    rows_rejected: rejects,
    calls_shared: t.shared,
    columns_empty: 0,
    members_unmapped: 0,
    warnings,
    items_reused: reused,
    credits_saved: reused * PRICE[r.pipeline]!,
    invocation: r.trigger === "manual" ? `skillsync run ${r.pipeline}` : null,
    rate_limited: rnd.next() < 0.05 ? rnd.int(1, 3) : 0,
    credits_estimated: 0,
  };
}

const REJECTS = toolkitDef("skillsync_rejects", {
  run_id: "text",
  pipeline: "text",
  table_name: "text",
  request_hash: "text",
  reason: "text",
  record: "text",
  created_at: "timestamp",
});

const REASONS = [
  "price: 'call for price' is not a decimal",
  "publication_number: missing (required by the key)",
  "ratings: '1.2k' is not an integer",
];

function rejectsOf(rnd: Random, r: PlannedRun, table: string): Record<string, unknown>[] {
  const n = r.status === "warnings" ? rnd.int(1, 5) : !r.loadRows && rnd.next() < 0.03 ? 1 : 0;
  return Array.from({ length: n }, (_, i) => ({
    run_id: r.id,
    pipeline: r.pipeline,
    table_name: table,
    request_hash: hex("req", r.pipeline, r.index, i).slice(0, 32),
    reason: rnd.pick(REASONS),
    record: JSON.stringify({ item: i, price: "call for price" }),
    created_at: iso(r.finishedMs),
  }));
}

const OUTBOX = toolkitDef("skillsync_outbox", {
  event_id: "text",
  target: "text",
  run_id: "text",
  kind: "text",
  payload: "text",
  created_at: "timestamp",
  attempts: "integer",
  next_attempt_at: "timestamp",
  delivered_at: "timestamp",
  last_error: "text",
});

/** The event a failed, warned or stopped run sends to the webhook: delivered, but for the last few. */
function eventOf(r: PlannedRun, nowMs: number): Record<string, unknown> | undefined {
  if (r.status !== "failed" && r.status !== "warnings" && r.status !== "ceiling") return undefined;
  const kind = `run.${r.status}`;
  const recent = nowMs - r.finishedMs < 2 * 3_600_000;
  return {
    event_id: eventIdOf(r.id, kind),
    target: WEBHOOK,
    run_id: r.id,
    kind,
    payload: JSON.stringify({ runId: r.id, pipeline: r.pipeline, status: r.status }),
    created_at: iso(r.finishedMs),
    attempts: recent ? 0 : 1,
    next_attempt_at: iso(r.finishedMs),
    delivered_at: recent ? null : iso(r.finishedMs + 2000),
    last_error: null,
  };
}

async function writeRuns(
  tx: WarehouseTx,
  rnd: Random,
  runs: PlannedRun[],
  o: { skills: Map<string, string>; tables: Map<string, string>; nowMs: number },
): Promise<Map<string, number>> {
  const perDay = new Map<string, number>();
  let calls: Record<string, unknown>[] = [];
  const runRows: Record<string, unknown>[] = [];
  const rejects: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  for (const r of runs) {
    const c = callsOf(rnd, r, o.skills.get(r.pipeline)!);
    const rj = rejectsOf(rnd, r, o.tables.get(r.pipeline)!);
    calls.push(...c.rows);
    rejects.push(...rj);
    runRows.push(runRow(rnd, r, c.t, rj.length));
    const ev = eventOf(r, o.nowMs);
    if (ev) events.push(ev);
    const day = iso(r.startedMs).slice(0, 10);
    perDay.set(day, (perDay.get(day) ?? 0) + c.t.credits);
    if (calls.length >= 20_000) {
      await writeAll(tx, CALLS, calls);
      calls = [];
    }
  }
  await writeAll(tx, CALLS, calls);
  await writeAll(tx, RUNS, runRows);
  await writeAll(tx, REJECTS, rejects);
  await writeAll(tx, OUTBOX, events);
  return perDay;
}

// ---------------------------------------------------------------------------------------------
// Budget, schedules, a watch and its alerts

const BUDGETS = toolkitDef("skillsync_budgets", {
  scope: "text",
  limit_credits: "number",
  reserved: "number",
  updated_at: "timestamp",
});

/** The daily and monthly budgets, and each day's and month's credits as their ceilings counted them. */
async function writeBudgets(w: Warehouse, perDay: Map<string, number>, nowMs: number): Promise<number> {
  const days = [...perDay.values()];
  const mean = days.reduce((a, b) => a + b, 0) / Math.max(1, days.length);
  const daily = Math.max(10, Math.round((mean * 1.25) / 10) * 10);
  await setBudget(w, "daily", daily);
  await setBudget(w, "monthly", daily * 25);
  const perMonth = new Map<string, number>();
  for (const [d, c] of perDay) perMonth.set(d.slice(0, 7), (perMonth.get(d.slice(0, 7)) ?? 0) + c);
  const rows = [
    ...[...perDay].map(([d, c]) => ({ scope: `daily:${d}`, limit_credits: daily, reserved: c })),
    ...[...perMonth].map(([m, c]) => ({ scope: `monthly:${m}`, limit_credits: daily * 25, reserved: c })),
  ].map((r) => ({ ...r, updated_at: iso(nowMs) }));
  await w.transaction((tx) => writeAll(tx, BUDGETS, rows));
  return daily;
}

/** One state row per scheduled pipeline, from its latest scheduled run; patent-family is paused. */
async function writeSchedules(w: Warehouse, runs: PlannedRun[], nowMs: number): Promise<void> {
  const scheduled = ["marketplace-search", "patent-legal-status", "patent-family", "patent-search"];
  await ensureStates(w, scheduled, new Date(nowMs));
  for (const pipeline of scheduled) {
    const last = runs.findLast((r) => r.pipeline === pipeline && r.trigger === "schedule");
    const paused = pipeline === "patent-family";
    await w.db
      .updateTable("skillsync_schedule_state")
      .set({
        last_tick_at: last ? iso(last.startedMs) : null,
        last_status: last ? "fired" : null,
        last_run_id: last?.id ?? null,
        consecutive_failures: paused ? 3 : 0,
        paused: paused ? 1 : 0,
        paused_reason: paused ? "3 scheduled runs in a row failed" : null,
        paused_at: paused ? iso(nowMs - 6 * 3_600_000) : null,
        updated_at: iso(nowMs),
      })
      .where("pipeline", "=", pipeline)
      .execute();
  }
}

/** A watch on the price key's price (fell by 10 %) and the alerts its loads made. */
async function writeWatch(w: Warehouse, key: BigWarehouse["priceKey"], loads: PlannedRun[]): Promise<void> {
  const keyText = JSON.stringify([key.keyword, key.asin]);
  await insertWatch(
    w,
    "price-drop",
    {
      table: "marketplace_price_history",
      columns: ["price"],
      when: { fellBy: { value: 10, percent: true } },
      notify: { url: null, email: [], digest: "load", cooldownMs: null },
      allKeys: false,
    },
    [keyText],
  );
  const walk = KEY_PRICES;
  const drafts: AlertDraft[] = [];
  for (let l = 1; l < walk.length; l++) {
    if (walk[l]! > walk[l - 1]! * 0.9) continue;
    drafts.push({
      watch: "price-drop",
      table: "marketplace_price_history",
      key: keyText,
      column: "price",
      change: "changed",
      old: String(walk[l - 1]),
      new: String(walk[l]),
      loadId: loads[l]!.loadId!,
      runId: loads[l]!.id,
      changedAt: iso(loads[l]!.startedMs + 1000),
      suppressed: false,
    });
  }
  await w.transaction((tx) => insertAlerts(tx.db, drafts));
}

// ---------------------------------------------------------------------------------------------

const pipelinesOf = () => PIPELINES.map((name) => loadPipeline(name));

/**
 * Builds the warehouse at `url` (a SQLite file path, or a Postgres URL with a schema of its own):
 * `o.runs` runs over `o.days` days before `o.now`, and `o.rows` rows in the pipelines' tables.
 *
 * @example const big = await bigWarehouse(freshWarehouseUrl("sqlite"), { runs: 200, rows: 20_000 });
 *   afterTest(() => big.close());
 */
export async function bigWarehouse(url: string, o: BigWarehouseSize): Promise<BigWarehouse> {
  const nowMs = (o.now ?? new Date()).getTime();
  const rnd = seeded(48);
  const all = pipelinesOf();
  const [market, status] = all as [LoadedPipeline, LoadedPipeline];
  const w = await openWarehouse(url);
  try {
    await preparePipelines(w, [market, status], { keyword: ["fixture"] });
    const runs = planRuns(rnd, o.runs, nowMs, o.days ?? 60);
    const priceLoads = loadRuns(runs, market.name, PRICE_LOADS, 0.5);
    const statusLoads = loadRuns(runs, status.name, STATUS_LOADS, 0.25);
    const shape = priceShape(Math.round(o.rows * 0.9));
    const marketDef = compileMapping(market.records).table;
    const statusMap = compileMapping(status.records);
    const perDay = await w.transaction(async (tx) => {
      await insertLoads(tx, [...priceLoads, ...statusLoads]);
      await writePrices(tx, rnd, marketDef, shape, priceLoads);
      const defs = { parent: statusMap.table, events: statusMap.children[0]! };
      const statusRows = o.rows - Math.round(o.rows * 0.9);
      await writeStatuses(tx, planPatents(rnd, statusRows), defs, statusRows, statusLoads);
      const skills = new Map(all.map((p) => [p.name, p.skill]));
      const tables = new Map(all.map((p) => [p.name, compileMapping(p.records).table.name]));
      return writeRuns(tx, rnd, runs, { skills, tables, nowMs });
    });
    await writeBudgets(w, perDay, nowMs);
    await writeSchedules(w, runs, nowMs);
    const priceKey = { keyword: keywordOf(0), asin: asinOf(0), versions: priceVersions(shape) };
    await writeWatch(w, priceKey, priceLoads);
    return {
      url,
      now: new Date(nowMs),
      runIds: runs.map((r) => r.id),
      priceTable: "marketplace_price_history",
      priceSource: "marketplace_search_results",
      priceKey,
      statusTable: "patent_legal_status",
      statusEvents: "patent_legal_events",
      statusKey: patentOf(0),
      warehouse: w,
      close: () => w.close(),
    };
  } catch (err) {
    await w.close();
    throw err;
  }
}

function priceVersions(s: PriceShape): number {
  let n = 0;
  for (let l = 0; l < PRICE_LOADS; l++) if (present(s, 0, l)) n++;
  return n;
}
