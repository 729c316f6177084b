import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { Emulator, LedgerCall } from "../../emulator/index.js";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { retryReportJob } from "../../engine/run/retry-report.js";
import { type RunSummary, runPipelines } from "../../engine/run/runner.js";
import { migrateToLatest } from "../../store/migrate.js";
import { pipelinesOf } from "./support/child-spec.js";
import { cli, cliEnv } from "./support/cli.js";
import { REPORT_DOWNLOAD, REPORT_STATUS, suiteClient, suiteEmulator } from "./support/emulator.js";
import {
  FAULT_ROUNDS,
  FAULT_STATUS,
  FAULTS,
  IMAGES,
  NO_FAULTS,
  paramsFor,
  THROUGH_CLI,
} from "./support/fault-plan.js";
import { charged } from "./support/ledger.js";
import { API_KEY } from "./support/secrets.js";
import { rows } from "./support/snapshot.js";
import { addFigures } from "./support/suite.js";
import { suiteWarehouse } from "./support/warehouses.js";

// Every built-in pipeline under the emulator's faults in combination: a 429 storm with Retry-After,
// 5xx, calls that never answer (the client gives up after 400 ms), malformed bodies, code ≠ 0 and
// schema drift. The run finishes what it can and records each failure with its reason; a later run
// without faults completes the rest without paying again for anything that succeeded.
interface Outcome {
  name: string;
  status: string;
  exit?: number;
  failures: number;
  lost: boolean;
}

describe("faults on every built-in pipeline", () => {
  let emulator: Emulator;
  let clean: Emulator;
  let w: Warehouse;
  let cleanW: Warehouse;
  let db: string;
  const names = listBuiltinPipelines().map((f) => loadPipeline(f).name);

  beforeAll(async () => {
    emulator = await suiteEmulator({ latencyMs: 2, jitterMs: 6, seed: 11, reportPendingPolls: 1 });
    clean = await suiteEmulator({ reportPendingPolls: 1 });
    db = suiteWarehouse("sqlite", "faults");
    w = await openWarehouse(db);
    await migrateToLatest(w);
    cleanW = await openWarehouse(suiteWarehouse("sqlite", "faults_clean"));
  });
  afterAll(async () => {
    await w.close();
    await cleanW.close();
    await emulator.stop();
    await clean.stop();
  });

  async function run(
    target: Emulator,
    warehouse: Warehouse,
    name: string,
    i: number,
    viaCli: boolean,
  ): Promise<Outcome> {
    const params = paramsFor(name, i);
    if (viaCli) {
      const args = [
        "run",
        name,
        ...Object.entries(params).flatMap(([k, vs]) => vs.flatMap((v) => ["--param", `${k}=${v}`])),
      ];
      const r = await cli([...args, "--db", db, "--json"], cliEnv(target.url, API_KEY));
      const s = JSON.parse(r.out) as RunSummary;
      return { name, status: s.status, exit: r.code, failures: s.failures.length, lost: false };
    }
    const client = suiteClient(target, {
      headersTimeoutMs: 400,
      maxRateLimitRetries: 3,
      maxRetryDelayMs: 1000,
    });
    try {
      const s = await runPipelines({
        warehouse,
        client,
        pipelines: pipelinesOf({ pipelines: [name], fastPollMs: 10 }),
        params,
        concurrency: 4,
      });
      const lost = s.failures.filter((f) => f.code === "REPORT_LOST").length > 0;
      return { name, status: s.status, failures: s.failures.length, lost };
    } finally {
      await client.close();
    }
  }

  it(`${names.length} pipelines: failures recorded with their reason, the rest completed later, nothing paid twice`, async () => {
    const problems: string[] = [];
    const f = {
      pipelines: names.length,
      runs: 0,
      faults_injected: 0,
      rate_limited: 0,
      server_errors: 0,
      timeouts: 0,
      malformed: 0,
      platform_errors: 0,
      drifted: 0,
      failures_recorded: 0,
      duplicates: 0,
      lost_rows: 0,
      double_paid: 0,
      reports_recreated: 0,
    };

    // The clean reference: every request a complete run makes.
    for (const [i, name] of names.entries()) {
      const o = await run(clean, cleanW, name, i, false);
      if (o.status !== "succeeded") problems.push(`clean ${name}: ${o.status}`);
    }

    // Phase 1: faults on, in rounds: each round also resumes what the round before left.
    const phase1: LedgerCall[] = [];
    for (const [round, seed] of FAULT_ROUNDS.entries())
      for (const [i, name] of names.entries()) {
        const viaCli = THROUGH_CLI.has(name);
        // The CLI's client waits a minute for headers: calls that never answer are left to the in-process runs.
        emulator.setFaults({
          ...FAULTS,
          ...(viaCli ? { timeoutRate: 0 } : {}),
          seed: seed * 100 + i + round,
        });
        const before = emulator.ledger().calls.length;
        const lastCall = Number(
          (await rows<{ id: number | null }>(w, "select max(id) as id from skillsync_calls"))[0]?.id ?? 0,
        );
        const o = await run(emulator, w, name, i, viaCli);
        f.runs++;
        // Answers held back until the client gave up are billed when they were processed: wait for none.
        const calls = emulator.ledger().calls.slice(before);
        phase1.push(...calls);
        const recorded = await rows<{ outcome: string; error_code: string | null; error: string | null }>(
          w,
          `select outcome, error_code, error from skillsync_calls where id > ${lastCall} and outcome in ('failed', 'ambiguous')`,
        );
        f.failures_recorded += recorded.length;
        for (const r of recorded)
          if (!r.error_code || !r.error) problems.push(`${name}: a failure without its reason`);
        const byCode = (code: string) => recorded.filter((r) => r.error_code === code).length;
        for (const [status, code] of Object.entries(FAULT_STATUS)) {
          const injected = calls.filter((c) => c.status === status).length;
          if (byCode(code) < injected)
            problems.push(`${name}: ${injected} ${status} injected, ${byCode(code)} recorded as ${code}`);
        }
        const limited = calls.filter((c) => c.status === "rate-limited").length;
        f.rate_limited += limited;
        if (byCode("RATE_LIMITED") * 4 > limited)
          problems.push(`${name}: a call gave up on 429 before 3 retries`);
        const anyFault = recorded.length > 0;
        if (anyFault && o.status === "succeeded") problems.push(`${name}: failures, yet the run succeeded`);
        // Drift can make records untypable: rejected, and the run then says so (`warnings`).
        const ended = o.status === "succeeded" || o.status === "warnings";
        if (!anyFault && !o.lost && o.failures === 0 && !ended)
          problems.push(`${name}: no failure, yet the run ended ${o.status}`);
        if (o.exit !== undefined) {
          const want = o.status === "succeeded" ? 0 : o.status === "warnings" ? 5 : 1;
          if (o.exit !== want)
            problems.push(`${name}: exit ${o.exit} for a ${o.status} run (documented: ${want})`);
        }
      }
    f.server_errors = phase1.filter((c) => c.status === "server-error").length;
    f.timeouts = phase1.filter((c) => c.status === "timeout").length;
    f.malformed = phase1.filter((c) => c.status === "malformed").length;
    f.platform_errors = phase1.filter((c) => c.status === "platform-error").length;
    f.drifted = phase1.filter((c) => c.status === "drift").length;
    f.faults_injected =
      f.rate_limited + f.server_errors + f.timeouts + f.malformed + f.platform_errors + f.drifted;

    // Phase 2: faults off; the same runs again complete the rest.
    emulator.setFaults(NO_FAULTS);
    const mark = emulator.ledger().calls.length;
    for (const [i, name] of names.entries()) {
      const o = await run(emulator, w, name, i, THROUGH_CLI.has(name));
      f.runs++;
      if (o.lost) {
        // A create that may have been billed is only created again when the user says so.
        const [job] = await rows<{ id: number }>(
          w,
          "select id from skillsync_report_jobs where status = 'lost' order by id desc limit 1",
        );
        const client = suiteClient(emulator);
        const r = await retryReportJob({ warehouse: w, client, ref: String(job!.id), create: true });
        await client.close();
        if (r.job.status === "done") f.reports_recreated++;
        else problems.push(`${name}: the explicit re-create ended ${r.job.status}`);
      } else if (o.status !== "succeeded") problems.push(`${name}: the run without faults ended ${o.status}`);
      if (o.exit !== undefined && o.exit !== 0) problems.push(`${name}: exit ${o.exit} without faults`);
    }
    const phase2 = emulator.ledger().calls.slice(mark);

    // Nothing that succeeded was paid again, in a later round or after (status polls repeat their
    // body by design; calls that failed after being billed, malformed or unanswered, are paid again).
    const succeeded = new Set<string>();
    for (const c of charged([...phase1, ...phase2])) {
      const key = `${c.slug} ${c.bodyHash}`;
      if (c.slug !== REPORT_STATUS && succeeded.has(key)) {
        f.double_paid++;
        problems.push(`${key}: paid again after it had succeeded`);
      }
      if (c.status === "ok" || c.status === "drift") succeeded.add(key);
    }

    // Complete: every request of a clean run has its stored answer; no key loaded twice.
    // (A report created again on the user's word has a new reportId: its polls and downloads differ.)
    const requests = async (x: Warehouse) =>
      new Set(
        (
          await rows<{ h: string }>(
            x,
            `select request_hash as h from skillsync_responses where skill not in ('${REPORT_STATUS}', '${REPORT_DOWNLOAD}')`,
          )
        ).map((r) => r.h),
      );
    const want = await requests(cleanW);
    const got = await requests(w);
    const missing = [...want].filter((h) => !got.has(h)).length;
    if (missing) problems.push(`${missing} request(s) of a clean run have no stored answer`);
    for (const name of names) {
      const p = loadPipeline(name);
      const t = p.records.table;
      const key = p.records.key?.join(", ") ?? (p.report ? "report_id, report_part, report_row" : undefined);
      const count = async (x: Warehouse, q: string) => Number((await rows<{ n: number }>(x, q))[0]?.n ?? 0);
      const total = await count(w, `select count(*) as n from ${t}`);
      if (key) {
        const distinct = await count(w, `select count(*) as n from (select distinct ${key} from ${t}) d`);
        f.duplicates += total - distinct;
        if (total !== distinct) problems.push(`${t}: ${total - distinct} duplicate key(s)`);
      }
      const expected = await count(cleanW, `select count(*) as n from ${t}`);
      const rejected = await count(
        w,
        `select count(*) as n from skillsync_rejects where table_name = '${t}'`,
      );
      if (total + rejected < expected) {
        f.lost_rows += expected - total - rejected;
        problems.push(
          `${t}: ${expected} rows in a clean run, ${total} here and ${rejected} rejected (with reasons)`,
        );
      }
    }

    addFigures("faults", f);
    console.log(`faults: ${JSON.stringify(f)}`);
    expect(problems).toEqual([]);
    // The faults really happened, of every kind.
    for (const k of [
      "rate_limited",
      "server_errors",
      "timeouts",
      "malformed",
      "platform_errors",
      "drifted",
    ] as const)
      expect(f[k], k).toBeGreaterThan(0);
  });

  it("exits 3 at a credit ceiling and 4 when the key or access is refused", async () => {
    const keyword = Array.from({ length: 6 }, (_, i) => `ceiling ${i}`).flatMap((k) => [
      "--param",
      `keyword=${k}`,
    ]);
    const ceiling = await cli(
      [
        "run",
        "marketplace-search",
        ...keyword,
        "--max-credits",
        "2",
        "--db",
        suiteWarehouse("sqlite", "exit3"),
      ],
      cliEnv(clean.url, API_KEY),
    );
    expect(ceiling.code, ceiling.err).toBe(3);
    expect(ceiling.out).toMatch(/stopped: stopped at the --max-credits of 2 credits/);

    const wrongKey = await cli(
      ["run", "marketplace-search", "--param", "keyword=x", "--db", suiteWarehouse("sqlite", "exit4a")],
      cliEnv(clean.url, `${API_KEY}-revoked`),
    );
    expect(wrongKey.code, wrongKey.err).toBe(4);
    expect(wrongKey.out).toMatch(/the API key was refused \(HTTP 401\)/);

    const denied = await suiteEmulator({ keys: [{ key: API_KEY, deny: ["ip-risk"] }] });
    try {
      const r = await cli(
        ["run", "ip-tro-check", "--param", `image=${IMAGES[0]}`, "--db", suiteWarehouse("sqlite", "exit4b")],
        cliEnv(denied.url, API_KEY),
      );
      expect(r.code, r.err).toBe(4);
      expect(r.out).toMatch(/no access to this operation or resource \(HTTP 403\)/);
    } finally {
      await denied.stop();
    }
    addFigures("faults", { exit_code_runs: 3 });
  });
});
