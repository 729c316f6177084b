import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { knownPublicationNumber } from "../../emulator/generate/patent-numbers.js";
import { type Emulator, type LedgerCall, legalStatusAt } from "../../emulator/index.js";
import { Rng } from "../../emulator/random.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { bundledPath, bundleFolder, bundleSources } from "../helpers/bundle.js";
import { until } from "../helpers/until.js";
import { runChild } from "./support/child.js";
import { suiteClient, suiteEmulator } from "./support/emulator.js";
import {
  historyViolations,
  type LoadCheck,
  loadCounters,
  signatureOf,
  type Version,
  versionsByKey,
} from "./support/history.js";
import { charged, credits } from "./support/ledger.js";
import { between, envCount, inLanes, prng } from "./support/prng.js";
import { API_KEY } from "./support/secrets.js";
import { rows } from "./support/snapshot.js";
import { addFigures, filesDir, keepOutput } from "./support/suite.js";
import { KINDS, type Kind, suiteWarehouse, unavailable } from "./support/warehouses.js";

// `records.mode: history` (patent-legal-status) under kill -9 and under identical runs at once,
// on SQLite and Postgres. A kill trial loads a few hundred patents at D, moves the emulator's clock
// a week on (7–10 % of legal statuses change), runs `skillsync run patent-legal-status --refresh`
// as a real process and SIGKILLs it at a seeded moment that follows the run's own progress (answers
// sent, kept, loaded, plus a few ms: the kills land while answers are kept and versions written),
// checks the history invariants on what the kill left, runs the same command again to the end and
// checks them again, with each key's versions against the emulator's own answers at each date,
// the load counters against the rows, and what was paid against what was needed. Then 4 identical
// runs at once on one warehouse, at D, a week later and with --refresh a week after that.

const D = "2026-11-08";
const D7 = "2026-11-15";
const D14 = "2026-11-22";
const TRIALS = envCount("RELIABILITY_HISTORY_TRIALS", 20);
const LANES = envCount("RELIABILITY_HISTORY_LANES", 2);
const RUNS_AT_ONCE = 4;
const CONCURRENCY = 4;
const BATCH = 100;
const SLUG = "patent-legal-status-data";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * What a trial does around its kill. `first`: the kill lands in the first load (every key's first
 * version); `change`: a week later, with --refresh, resumed the same way; `change-later`: resumed a
 * further week on (kept answers of D+7 and new ones of D+14 meet); `unchanged`: --refresh at the
 * same date (nothing may become a version); `resume-plain`: resumed without --refresh (the stored
 * answers of D are fresh again and older than what the kill left loaded); `overtaken`: before the
 * resume, another run (the same patents in another order: another run) loads D+14, so the answers
 * the killed run had kept are older than the current versions when it loads them.
 */
const VARIANTS = ["change", "first", "change-later", "unchanged", "resume-plain", "overtaken"] as const;
type Variant = (typeof VARIANTS)[number];

/** Publication numbers the emulator knows and has published by D (legalStatusAt answers them). */
function patentPool(n: number, seed: number): string[] {
  const rng = new Rng(seed);
  const out = new Set<string>();
  while (out.size < n) {
    const pn = knownPublicationNumber(rng);
    if (legalStatusAt(pn, D)) out.add(pn);
  }
  return [...out].sort();
}

function sample(pool: readonly string[], n: number, rnd: () => number): string[] {
  const copy = [...pool];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n).sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CliOutcome {
  outcome: "killed" | "finished" | "failed";
  code: number | null;
  stderr: string;
  /** When SIGKILL was sent (ms since the epoch), if it was. */
  killedAt: number | undefined;
  /** The process's Postgres application_name. */
  session: string;
}

/** When to SIGKILL a run: once `ready()` holds (looked at every few ms), `ms` milliseconds later. */
interface Kill {
  ready: () => Promise<boolean> | boolean;
  ms: number;
}

/**
 * `skillsync <args>` in its own process (`cli`: the CLI compiled from source, helpers/bundle.ts),
 * against `emu`.
 * With `kill`, SIGKILLed at a moment that follows the run's own progress (answers sent, kept,
 * loaded), not a guess of how long the process takes to start on a busy machine.
 */
/** Each CLI process's Postgres sessions carry its own name, to wait for them once it is killed. */
let sessionNames = 0;

function skillsync(cli: string, args: string[], emu: Emulator, kill?: Kill): Promise<CliOutcome> {
  const session = `skillsync-history-${process.pid}-${++sessionNames}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SKILL_API_BASE_URL: emu.url,
    SKILL_API_KEY: API_KEY,
    PGAPPNAME: session,
  };
  delete env["DATABASE_URL"];
  delete env["SKILLSYNC_PRICES"];
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => {
      out += String(d);
    });
    p.stderr.on("data", (d) => {
      err += String(d);
    });
    let exited = false;
    let killedAt: number | undefined;
    if (kill) {
      const watch = async () => {
        while (!exited) {
          if (await Promise.resolve(kill.ready()).catch(() => false)) {
            setTimeout(() => {
              killedAt = Date.now();
              p.kill("SIGKILL");
            }, kill.ms);
            return;
          }
          await sleep(4);
        }
      };
      void watch();
    }
    p.on("exit", (code, signal) => {
      exited = true;
      keepOutput("history-cli", `$ skillsync ${args.join(" ")}\n${out}${err}`);
      resolve({
        outcome: signal === "SIGKILL" ? "killed" : code === 0 ? "finished" : "failed",
        code,
        stderr: `${err}${out}`.slice(-3000),
        killedAt,
        session,
      });
    });
  });
}

/** Waits until no Postgres session of a killed process is left (nothing to wait for on SQLite). */
async function sessionsGone(w: Warehouse, session: string): Promise<void> {
  if (w.adapter.dialect !== "postgres") return;
  await until(
    async () => {
      const [r] = await rows<{ n: unknown }>(
        w,
        `select count(*) as n from pg_stat_activity where application_name = '${session}'`,
      );
      return Number(r?.n) === 0;
    },
    30_000,
    `the killed process's Postgres sessions (${session}) to end`,
  );
}

/**
 * Where a run in another process stands, read from the warehouse as it commits: its paid calls
 * kept (answered, loaded or not) and loaded, counted from ledger rows after `base`.
 */
async function progressOf(w: Warehouse, base: number): Promise<{ kept: number; loaded: number }> {
  const r = await rows<{ kept: unknown; loaded: unknown }>(
    w,
    `select coalesce(sum(case when outcome in ('answered', 'succeeded') then 1 else 0 end), 0) as kept,
       coalesce(sum(case when outcome = 'succeeded' then 1 else 0 end), 0) as loaded
     from skillsync_calls where id > ${base} and credits > 0`,
  );
  return { kept: Number(r[0]?.kept ?? 0), loaded: Number(r[0]?.loaded ?? 0) };
}

/** Whether a run in another process has made the history table yet. */
const tableMade = (w: Warehouse): Promise<boolean> =>
  rows(w, "select 1 from patent_legal_status where 1 = 0").then(
    () => true,
    () => false,
  );

/**
 * The keys and unique indexes that make the database itself keep the invariants (a key's versions
 * by valid_from, one current version per key, a child row per version and position): each a
 * problem when missing, say after a kill while the tables were being made. A new table keeps the
 * first and the last with its primary key (made with the table itself), one made before keys with
 * a `_version` unique index.
 */
async function missingIndexes(w: Warehouse): Promise<string[]> {
  const catalog = await w.adapter.readCatalog(w.db);
  const versions: [string, string][] = [
    ["patent_legal_status", "publication_number,valid_from"],
    ["patent_legal_events", "publication_number,valid_from,position"],
  ];
  const missing = versions
    .filter(([t, pk]) => !catalog.indexes.has(`${t}_version`) && catalog.primaryKeys.get(t)?.join(",") !== pk)
    .map(([t]) => `primary key or index ${t}_version missing`);
  if (!catalog.indexes.has("patent_legal_status_current_key"))
    missing.push("index patent_legal_status_current_key missing");
  return missing;
}

/** Identifier → how many charged calls asked for it. */
function identifiersCharged(calls: LedgerCall[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of charged(calls)) {
    if (c.slug !== SLUG) continue;
    for (const pn of c.items ?? []) out.set(pn, (out.get(pn) ?? 0) + 1);
  }
  return out;
}

/** The contents a key's versions may show, date after date: consecutive equal ones make one version. */
function chain(pn: string, dates: readonly string[]): string[] {
  const out: string[] = [];
  for (const date of dates) {
    const record = legalStatusAt(pn, date);
    if (!record) continue;
    const s = signatureOf(record);
    if (out.at(-1) !== s) out.push(s);
  }
  return out;
}

/**
 * The content check: every key asked has versions, none other; each key's versions, oldest first,
 * are one of the chains the trial allows (the emulator's answers at the dates its answers may come
 * from). A version lost, duplicated, invented or out of order shows here.
 */
function contentProblems(
  versions: Map<string, Version[]>,
  pns: readonly string[],
  allowed: (pn: string) => string[][],
): string[] {
  const problems: string[] = [];
  for (const k of versions.keys()) if (!pns.includes(k)) problems.push(`${k}: versions of a key never asked`);
  for (const pn of pns) {
    const got = (versions.get(pn) ?? []).map((v) => v.signature);
    const options = allowed(pn);
    if (!options.some((o) => o.length === got.length && o.every((s, i) => s === got[i])))
      problems.push(`${pn}: versions ${JSON.stringify(got)}, expected one of ${JSON.stringify(options)}`);
  }
  return problems;
}

async function withWarehouse<T>(db: string, fn: (w: Warehouse) => Promise<T>): Promise<T> {
  const w = await openWarehouse(db);
  try {
    return await fn(w);
  } finally {
    await w.close();
  }
}

/** The run a kill left: its id, its calls by outcome and the identifiers it had kept (stored) before dying. */
async function killedState(w: Warehouse) {
  const run = await rows<{ id: string; status: string }>(
    w,
    "select id, status from skillsync_runs order by started_at desc, id desc limit 1",
  ).catch(() => []);
  const runId = run[0]?.id;
  const status = run[0]?.status ?? "none";
  if (!runId) return { runId, status, outcomes: {} as Record<string, number>, kept: new Set<string>() };
  const outcomes: Record<string, number> = {};
  for (const r of await rows<{ outcome: string; n: unknown }>(
    w,
    `select outcome, count(*) as n from skillsync_calls where run_id = '${runId}' group by outcome`,
  ))
    outcomes[r.outcome] = Number(r.n);
  // Each paid answer is also stored per identifier (the request asking for it alone).
  const kept = new Set<string>();
  for (const r of await rows<{ request: unknown }>(
    w,
    `select request from skillsync_responses where run_id = '${runId}'`,
  )) {
    const body = (typeof r.request === "string" ? JSON.parse(r.request) : r.request) as {
      patentNumber?: string;
    };
    for (const pn of String(body.patentNumber ?? "").split(",")) if (pn) kept.add(pn);
  }
  return { runId, status, outcomes, kept };
}

const pipelines = () => [loadPipeline("patent-legal-status")];

/** What the kill trials of one database add up to (the figures of docs/reliability.md). */
const killFigures = () => ({
  trials: 0,
  killed: 0,
  finished_before_kill: 0,
  resumed: 0,
  // Where the kills landed, from what the warehouse held after them: answers kept but not yet
  // loaded (their versions were being written); none of the run's answers loaded; some loaded, not
  // all; all loaded (the run was ending); the run's row already ended (the process not yet gone);
  // the tables, indexes and views of a first load being made.
  killed_with_answers_unloaded: 0,
  killed_before_any_load: 0,
  killed_between_loads: 0,
  killed_after_all_loads: 0,
  killed_after_run_ended: 0,
  killed_while_preparing: 0,
  calls_in_flight_at_kill: 0,
  identifiers_in_flight_at_kill: 0,
  identifiers_repaid: 0,
  identifiers_repaid_trial_max: 0,
  repaid_answer_sent_ms_before_kill_max: 0,
  calls_charged: 0,
  identifiers_charged: 0,
  versions: 0,
  versions_after_change: 0,
  invariant_violations: 0,
  load_counter_mismatches: 0,
  content_mismatches: 0,
  trial_ms_max: 0,
  killed_run_ms: 0,
  resumed_run_ms: 0,
});
type KillFigures = ReturnType<typeof killFigures>;

interface KillTrial {
  kind: Kind;
  n: number;
  seed: number;
  emu: Emulator;
  pool: readonly string[];
  dir: string;
  cli: string;
  f: KillFigures;
  problems: string[];
}

/**
 * One kill trial: the load at D (unless the kill is to land in the first one), the clock moved,
 * `skillsync run patent-legal-status` killed -9 at a seeded moment, the invariants checked on what
 * it left, the same command again to the end, then everything checked.
 */
async function killTrial(t: KillTrial): Promise<void> {
  const { emu, f } = t;
  const t0 = Date.now();
  emu.reset();
  emu.setDate(D);
  const rnd = prng(t.seed);
  const variant: Variant = VARIANTS[t.n % VARIANTS.length]!;
  const pns = sample(t.pool, between(rnd, 300, 600), rnd);
  const file = join(t.dir, `trial-${t.n}.txt`);
  writeFileSync(file, `${pns.join("\n")}\n`);
  const calls = Math.ceil(pns.length / BATCH);
  // The moment: once the emulator has sent `count` answers (the kill lands while answers travel or
  // are being kept), once `count` answers are kept (while they are normalised and their versions
  // written), or once `count` are loaded (among the later loads, or as the run ends).
  // Half the kills of a first load land while its tables, indexes and views are being made.
  const pick = rnd();
  const mode =
    variant === "first" && rnd() < 0.5 ? "preparing" : pick < 0.25 ? "sent" : pick < 0.65 ? "kept" : "loaded";
  const count =
    mode === "preparing" ? 0 : between(rnd, 1, mode === "loaded" ? Math.max(1, calls - 1) : calls);
  const ms = Math.floor(rnd() * 40);
  const moment = mode === "preparing" ? "its table was made" : `${count} ${mode}`;
  const where = `${t.kind} trial ${t.n} (seed ${t.seed}, ${variant}, ${pns.length} patents, kill ${ms} ms after ${moment})`;
  const fail = (what: string) => t.problems.push(`${where}: ${what}`);
  const db = suiteWarehouse(t.kind, `history_${t.n}`);
  const w = await openWarehouse(db);
  const run = (refresh: boolean, patents = pns) => {
    const client = suiteClient(emu);
    return runPipelines({
      warehouse: w,
      client,
      pipelines: pipelines(),
      params: { patent: patents },
      concurrency: CONCURRENCY,
      refresh,
    }).finally(() => client.close());
  };
  try {
    // At D: the first load, in this process.
    if (variant !== "first") {
      const s = await run(false);
      if (s.status !== "succeeded") return void fail(`the load at D ${s.status}`);
    }

    // The run to kill, a week later (or at D for `first` and `unchanged`), as its own process.
    emu.setDate(variant === "first" || variant === "unchanged" ? D : D7);
    const refresh = variant !== "first";
    const args = [
      "run",
      "patent-legal-status",
      ...(refresh ? ["--refresh"] : []),
      ...["--param", `patent=@${file}`, "--db", db, "--concurrency", String(CONCURRENCY), "--json"],
    ];
    const mark = emu.ledger().calls.length;
    // A new warehouse has no ledger yet: the killed run makes it.
    const [top] = await rows<{ id: unknown }>(
      w,
      "select coalesce(max(id), 0) as id from skillsync_calls",
    ).catch(() => []);
    const base = Number(top?.id ?? 0);
    const sent = emu.ledger().totalCalls;
    // The warehouse is read only once the emulator has answered: nothing is kept before.
    const ready = async () => {
      if (mode === "preparing") return tableMade(w);
      const answers = emu.ledger().totalCalls - sent;
      if (answers < count) return false;
      return mode === "sent" || (await progressOf(w, base))[mode] >= count;
    };
    const t1 = Date.now();
    const first = await skillsync(t.cli, args, emu, { ready, ms });
    f.killed_run_ms += Date.now() - t1;
    if (first.outcome === "failed") return void fail(`the run to kill failed: ${first.stderr}`);
    if (first.outcome === "killed") f.killed++;
    else f.finished_before_kill++;
    // Answers the emulator was still holding back (latency) are sent, or abandoned.
    await sleep(120);
    // A killed client's COMMIT already on its way still commits, once its backend reads it: what
    // the kill left is read once the process's sessions are gone.
    if (first.outcome === "killed") await sessionsGone(w, first.session);
    const killedCalls = emu.ledger().calls.slice(mark);

    // What the kill left: every load is one transaction, so the invariants hold now too.
    const atKill = await killedState(w);
    // A kill while the tables were being made leaves nothing loaded (the views may be missing).
    const loadedAny = await rows<{ n: unknown }>(w, "select count(*) as n from patent_legal_status")
      .then((r) => Number(r[0]?.n) > 0)
      .catch(() => false);
    const violationsAtKill = loadedAny
      ? await historyViolations(w).catch((e) => [`the check failed: ${e}`])
      : [];
    const countersAtKill: Pick<LoadCheck, "problems"> & Partial<LoadCheck> = loadedAny
      ? await loadCounters(w).catch((e) => ({ problems: [`the check failed: ${e}`] }))
      : { problems: [] };
    for (const v of violationsAtKill) fail(`after the kill: ${v}`);
    for (const p of countersAtKill.problems) fail(`after the kill: ${p}`);
    f.invariant_violations += violationsAtKill.length;
    f.load_counter_mismatches += countersAtKill.problems.length;
    if (first.outcome === "killed" && mode === "preparing") f.killed_while_preparing++;
    else if (first.outcome === "killed") {
      const loaded = atKill.outcomes["succeeded"] ?? 0;
      if (atKill.outcomes["answered"]) f.killed_with_answers_unloaded++;
      if (atKill.status === "succeeded") f.killed_after_run_ended++;
      else if (loaded === 0) f.killed_before_any_load++;
      else if (loaded < calls) f.killed_between_loads++;
      else f.killed_after_all_loads++;
      f.calls_in_flight_at_kill += atKill.outcomes["reserved"] ?? 0;
    }

    // The same command again, to the end (in this process); a further week on for change-later and
    // overtaken, where another run loads D+14 first.
    if (variant === "change-later" || variant === "overtaken") emu.setDate(D14);
    if (variant === "overtaken") {
      const other = await run(true, [...pns].reverse());
      if (other.status !== "succeeded" || other.resumed) fail(`the overtaking run: ${other.status}`);
    }
    const resumeMark = emu.ledger().calls.length;
    const t2 = Date.now();
    const again = await run(refresh && variant !== "resume-plain");
    f.resumed_run_ms += Date.now() - t2;
    if (again.status !== "succeeded")
      fail(`the run again ${again.status}: ${again.failures.map((x) => x.message).join("; ")}`);
    // A kill before the run had its row (tables being made) or after it ended it (the process not
    // yet gone) leaves nothing to resume.
    if (first.outcome === "killed" && atKill.status === "running" && !again.resumed)
      fail(`the run again did not resume the killed one (${atKill.status})`);
    if (again.resumed) f.resumed++;

    // Paid: each identifier once, but those the kill cut off (charged, never kept) once more at most.
    // A run that had ended before the kill is not resumed: the run again is a new one, and with
    // --refresh it asks for everything again, as it was told; each run then pays each identifier once.
    const againCalls = emu.ledger().calls.slice(resumeMark);
    const phase = [...killedCalls, ...againCalls];
    const inFlight = new Set(
      [...identifiersCharged(killedCalls).keys()].filter((pn) => !atKill.kept.has(pn)),
    );
    f.identifiers_in_flight_at_kill += inFlight.size;
    let repaid = 0;
    for (const part of again.resumed ? [phase] : [killedCalls, againCalls])
      for (const [pn, times] of identifiersCharged(part)) {
        if (times === 1) continue;
        if (times === 2 && inFlight.has(pn) && again.resumed) {
          repaid++;
          // How long before the kill the emulator had sent the answer the kill then lost.
          const sentAt = charged(killedCalls).find((c) => c.items?.includes(pn))?.at;
          if (sentAt !== undefined && first.killedAt !== undefined)
            f.repaid_answer_sent_ms_before_kill_max = Math.max(
              f.repaid_answer_sent_ms_before_kill_max,
              first.killedAt - sentAt,
            );
        } else fail(`${pn} paid ${times} times (in flight at the kill: ${inFlight.has(pn)})`);
      }
    for (const [pn, times] of identifiersCharged(againCalls))
      if (times > 1) fail(`${pn} paid ${times} times by the run again alone`);
    f.identifiers_repaid += repaid;
    f.identifiers_repaid_trial_max = Math.max(f.identifiers_repaid_trial_max, repaid);
    f.calls_charged += charged(phase).length;
    f.identifiers_charged += [...identifiersCharged(phase).values()].reduce((a, b) => a + b, 0);
    // The warehouse's ledgers hold what the emulator billed, plus at most the calls cut off.
    const [held] = await rows<{ total: unknown; cut: unknown }>(
      w,
      "select coalesce(sum(credits), 0) as total, coalesce(sum(case when outcome = 'interrupted' then credits else 0 end), 0) as cut from skillsync_calls",
    );
    const billed = credits(emu.ledger().calls);
    const [total, cut] = [Number(held!.total), Number(held!.cut)];
    if (billed > total + 1e-9 || total - billed > cut + 1e-9)
      fail(`the ledgers hold ${total} credits (${cut} cut off), the emulator billed ${billed}`);
    const [open] = await rows<{ n: unknown }>(
      w,
      "select count(*) as n from skillsync_calls where outcome in ('reserved', 'answered')",
    );
    if (Number(open!.n) !== 0) fail(`${open!.n} calls left reserved or answered and not loaded`);

    // The invariants (and the indexes that keep them), the load counters and the content.
    const violations = [...(await missingIndexes(w)), ...(await historyViolations(w))];
    const counters = await loadCounters(w);
    for (const v of violations) fail(`after the resume: ${v}`);
    for (const p of counters.problems) fail(`after the resume: ${p}`);
    f.invariant_violations += violations.length;
    f.load_counter_mismatches += counters.problems.length;
    if (counters.finished !== counters.loads) fail(`${counters.loads - counters.finished} loads unfinished`);
    // Each load answered every key once: a version or unchanged. A resumed run does not load again
    // what its killed part had loaded (its loaded batches' items are left out of its own parts).
    for (const l of counters.keys)
      if (l.versionsNew + l.unchanged !== pns.length)
        fail(
          `load ${l.id}: ${l.versionsNew} versions + ${l.unchanged} unchanged for ${pns.length} keys; at the kill: ${JSON.stringify(atKill.outcomes)}`,
        );
    const versions = await versionsByKey(w);
    const content = contentProblems(versions, pns, (pn) => allowedChains(variant, pn, again.resumed));
    f.content_mismatches += content.length;
    const how = `the run again ${again.resumed ? "resumed the killed run" : "was a new run"}; the killed run's row: ${atKill.status}`;
    for (const c of content.slice(0, 5)) fail(`${c} (${how})`);
    for (const list of versions.values()) {
      f.versions += list.length;
      f.versions_after_change += list.length - 1;
    }
    if (variant === "unchanged") {
      const [l] = await rows<{ versions_new: unknown }>(
        w,
        `select versions_new from skillsync_loads where run_id = '${again.runId}'`,
      );
      if (Number(l?.versions_new) !== 0) fail(`a refresh at the same date made ${l?.versions_new} versions`);
    }
    f.trials++;
    f.trial_ms_max = Math.max(f.trial_ms_max, Date.now() - t0);
  } finally {
    await w.close();
  }
}

/**
 * The version chains a key may end with: the emulator's answers at the dates the trial's answers
 * may come from. `change-later`: resumed, a key the killed run had kept is loaded at D+7, the
 * others are asked at D+14; not resumed (the killed run had ended before the kill, every key
 * loaded at D+7, or had not begun its row), the run again is a new one asking every key at D+14. `resume-plain`: the run again takes the stored answers of D (fresh) for the keys
 * the killed run had not kept. `overtaken`: D+7 only where the killed run had loaded it before
 * the kill (answers it had kept, loaded after D+14, are older: not written).
 */
function allowedChains(variant: Variant, pn: string, resumed: boolean): string[][] {
  switch (variant) {
    case "first":
      return [chain(pn, [D])];
    case "unchanged":
      return [chain(pn, [D, D])];
    case "change":
      return [chain(pn, [D, D7])];
    case "change-later":
      return resumed
        ? [chain(pn, [D, D7]), chain(pn, [D, D14])]
        : [chain(pn, [D, D7, D14]), chain(pn, [D, D14])];
    case "resume-plain":
      return [chain(pn, [D, D7]), chain(pn, [D])];
    case "overtaken":
      return [chain(pn, [D, D7, D14]), chain(pn, [D, D14])];
  }
}

const CHILD_MAIN = "test/reliability/support/child-main.ts";
const folder = bundleFolder("reliability");
const bundle = { cli: bundledPath(folder.dir, "cli/run.ts"), childMain: bundledPath(folder.dir, CHILD_MAIN) };
beforeAll(() => bundleSources(["cli/run.ts", CHILD_MAIN], folder.dir));
afterAll(() => folder.remove());

describe.each(KINDS)("history invariants on %s", (kind: Kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    const pool = patentPool(700, 20261108);

    it(`${TRIALS} kill -9 trials: versions meet, one current per key, nothing paid twice but calls in flight`, async () => {
      const lanes: Emulator[] = [];
      for (let i = 0; i < LANES; i++)
        lanes.push(await suiteEmulator({ date: D, latencyMs: 10, jitterMs: 30, seed: i + 1 }));
      const problems: string[] = [];
      const f = killFigures();
      const started = Date.now();
      const dir = filesDir("history-patents");
      try {
        const trials = Array.from({ length: TRIALS }, (_, n) => ({ n, seed: 7100 + n }));
        await inLanes(trials, LANES, (trial, lane) =>
          killTrial({ kind, ...trial, emu: lanes[lane]!, pool, dir, cli: bundle.cli, f, problems }),
        );
      } finally {
        for (const e of lanes) await e.stop();
      }
      const seconds = Math.round((Date.now() - started) / 1000);
      addFigures("history", { [`kill_trials_${kind}`]: f.trials, [`kill_seconds_${kind}`]: seconds, ...f });
      console.log(`history kill trials ${kind} (${seconds} s): ${JSON.stringify(f)}`);
      expect(problems).toEqual([]);
      expect(f.trials).toBe(TRIALS);
      // The kills landed mid-run, and a good part of them after answers were kept, among the loads.
      expect(f.killed).toBeGreaterThanOrEqual(Math.floor(TRIALS * 0.8));
      expect(f.killed_with_answers_unloaded + f.killed_between_loads).toBeGreaterThanOrEqual(
        Math.floor(TRIALS / 4),
      );
      expect(f.versions_after_change).toBeGreaterThan(0);
    });

    it(`${RUNS_AT_ONCE} identical runs at once: at D, a week later, and with --refresh a week after`, async () => {
      const emu = await suiteEmulator({ date: D, latencyMs: 40, jitterMs: 60 });
      const db = suiteWarehouse(kind, "history_concurrent");
      const pns = pool.slice(0, 400);
      const problems: string[] = [];
      const f = {
        at_once_rounds: 0,
        at_once_runs: 0,
        at_once_identifiers_charged: 0,
        at_once_identifiers_paid_twice: 0,
        at_once_answers_shared: 0,
        at_once_versions: 0,
        content_mismatches: 0,
        invariant_violations: 0,
        load_counter_mismatches: 0,
        at_once_overlapping_rounds: 0,
      };
      const started = Date.now();
      const dates: string[] = [];
      let billed = 0;
      try {
        for (const round of [
          { date: D, refresh: false, age: false },
          // A week later: the stored answers are a week old (their received_at moved back 8 days),
          // past the pipeline's freshness, so every run needs them again and single flight shares.
          { date: D7, refresh: false, age: true },
          // --refresh: freshness 0, so each run asks for its own answers (single flight does not share).
          { date: D14, refresh: true, age: false },
        ]) {
          const where = `${kind} runs at once at ${round.date}${round.refresh ? " with --refresh" : ""}`;
          emu.reset();
          emu.setDate(round.date);
          dates.push(round.date);
          if (round.age) {
            const weekAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
            await withWarehouse(db, (w) =>
              sql`update skillsync_responses set received_at = ${weekAgo}`.execute(w.db),
            );
          }
          const startAt = Date.now() + 4000;
          const outs = await Promise.all(
            Array.from({ length: RUNS_AT_ONCE }, () =>
              runChild(
                {
                  db,
                  baseUrl: emu.url,
                  pipelines: ["patent-legal-status"],
                  params: { patent: pns },
                  concurrency: CONCURRENCY,
                  startAt,
                  refresh: round.refresh,
                },
                { compiled: bundle.childMain },
              ),
            ),
          );
          const statuses = outs.map((o) => o.summary?.status ?? o.stderr);
          if (statuses.some((s) => s !== "succeeded")) problems.push(`${where}: ${JSON.stringify(statuses)}`);
          f.at_once_runs += outs.length;
          f.at_once_answers_shared += outs.reduce((s, o) => s + (o.summary?.shared ?? 0), 0);

          // Single flight: each identifier paid once across the runs; with --refresh once per run at most.
          const paid = identifiersCharged(emu.ledger().calls);
          f.at_once_identifiers_charged += [...paid.values()].reduce((a, b) => a + b, 0);
          const most = round.refresh ? RUNS_AT_ONCE : 1;
          const over = [...paid].filter(([, n]) => n > most);
          if (!round.refresh) f.at_once_identifiers_paid_twice += over.length;
          if (over.length)
            problems.push(
              `${where}: ${over.length} identifiers paid more than ${most} times: ${JSON.stringify(over.slice(0, 5))}`,
            );
          billed += credits(emu.ledger().calls);
          const missing = pns.filter((pn) => !paid.has(pn));
          if (missing.length) problems.push(`${where}: ${missing.length} identifiers never asked`);

          await withWarehouse(db, async (w) => {
            const violations = await historyViolations(w);
            const counters = await loadCounters(w);
            f.invariant_violations += violations.length;
            f.load_counter_mismatches += counters.problems.length;
            for (const v of [...violations, ...counters.problems]) problems.push(`${where}: ${v}`);
            // Every run loaded every key once (its own answer or one it shared): a version or unchanged.
            for (const l of counters.keys)
              if (l.versionsNew + l.unchanged !== pns.length)
                problems.push(
                  `${where}: load ${l.id}: ${l.versionsNew} versions + ${l.unchanged} unchanged for ${pns.length} keys`,
                );
            // No version twice: each key's versions are exactly the emulator's changes over the dates.
            const versions = await versionsByKey(w);
            const content = contentProblems(versions, pns, (pn) => [chain(pn, dates)]);
            f.content_mismatches += content.length;
            for (const c of content.slice(0, 5)) problems.push(`${where}: ${c}`);
            f.at_once_versions = [...versions.values()].reduce((a, l) => a + l.length, 0);
            // No run paid one request twice; and the runs did overlap in time.
            const twice = await rows(
              w,
              "select run_id, request_hash, count(*) as n from skillsync_calls where credits > 0 group by run_id, request_hash having count(*) > 1",
            );
            if (twice.length)
              problems.push(`${where}: a run paid a request twice: ${JSON.stringify(twice[0])}`);
            // The runs' ledgers hold what the emulator billed, no more, no less.
            const [held] = await rows<{ total: unknown }>(
              w,
              "select coalesce(sum(credits), 0) as total from skillsync_calls",
            );
            if (Math.abs(Number(held!.total) - billed) > 1e-9)
              problems.push(
                `${where}: the ledgers hold ${held!.total} credits, the emulator billed ${billed}`,
              );
            const spans = await rows<{ started_at: unknown; finished_at: unknown }>(
              w,
              `select started_at, finished_at from skillsync_runs order by started_at desc limit ${RUNS_AT_ONCE}`,
            );
            const ms = (v: unknown) => (v instanceof Date ? v.getTime() : Date.parse(String(v)));
            if (
              Math.max(...spans.map((s) => ms(s.started_at))) <
              Math.min(...spans.map((s) => ms(s.finished_at)))
            )
              f.at_once_overlapping_rounds++;
          });
          f.at_once_rounds++;
        }
      } finally {
        await emu.stop();
      }
      const seconds = Math.round((Date.now() - started) / 1000);
      addFigures("history", {
        [`at_once_rounds_${kind}`]: f.at_once_rounds,
        [`at_once_seconds_${kind}`]: seconds,
        ...f,
      });
      console.log(`history runs at once ${kind} (${seconds} s): ${JSON.stringify(f)}`);
      expect(problems).toEqual([]);
      expect(f.at_once_rounds).toBe(3);
      // The runs of a round did run at once (their spans overlap), not one after another.
      expect(f.at_once_overlapping_rounds).toBeGreaterThanOrEqual(2);
    });
  });
});
