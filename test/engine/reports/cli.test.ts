import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";
import { pipelineFrom } from "../fixtures.js";
import { count, jobs, ledgerOf, RANGE, run } from "./helpers.js";

/** The built-in search impression share pipeline as a file of its own, polling fast (the job remembers the file). */
function fastFile() {
  const text = readFileSync(loadPipeline("ads-sp-search-impression-share").file, "utf8");
  return pipelineFrom(text.replace(/poll: \{[^}]*\}/, "poll: { initial: 2ms, max: 5ms, timeout: 10s }"));
}

describe("skillsync reports", () => {
  let w: Warehouse | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
    vi.unstubAllEnvs();
  });

  async function setup(options: Parameters<typeof emulatorWithClient>[0]) {
    const env = await emulatorWithClient(options);
    vi.stubEnv("SKILL_API_BASE_URL", env.emulator.url);
    vi.stubEnv("SKILL_API_KEY", DEMO_KEY);
    const db = freshWarehouseUrl("sqlite");
    w = await openWarehouse(db);
    return { ...env, db, w };
  }

  it("lists jobs, and retry polls a timed-out report to the end without a new create", async () => {
    const { emulator, client, db, w } = await setup({
      reportPendingPolls: 12,
      reportParts: 2,
      reportRowsPerPart: 5,
    });
    const p = fastFile();
    const timedOut = { ...p, report: { ...p.report!, poll: { ...p.report!.poll, timeout: "15ms" } } };
    const s = await run(w, client, timedOut, { connection: ["5"], ...RANGE });
    expect(s.failures[0]?.code).toBe("REPORT_TIMEOUT");

    const listed = await cli(["reports", "--db", db, "--json"]);
    expect(listed.code).toBe(0);
    const [job] = JSON.parse(listed.out) as { id: number; status: string; reportId: string; parts: number }[];
    expect(job).toMatchObject({ status: "timeout", parts: 0 });
    const text = await cli(["reports", "--db", db]);
    expect(text.out).toContain(job!.reportId);
    expect(text.out).toContain("timeout");

    const retried = await cli(["reports", "retry", job!.reportId, "--db", db]);
    expect(retried.err).toBe("");
    expect(retried.code).toBe(0);
    expect(retried.out).toContain("done");
    expect(ledgerOf(emulator)).toMatchObject({ creates: 1, downloads: 2 });
    expect(await count(w, "ads_sp_search_impression_share")).toBe(10);
    expect((await jobs(w)).map((j) => j.status)).toEqual(["done"]);
  });

  it("refuses to create a failed report again unless told, and says what the new create costs", async () => {
    const { emulator, client, db, w } = await setup({ reportPendingPolls: 0, failedReports: [7] });
    await run(w, client, fastFile(), { connection: ["7"], ...RANGE });
    const [job] = await jobs(w);
    expect(job!.status).toBe("failed");

    const refused = await cli(["reports", "retry", String(job!.id), "--db", db]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("costs 10 credits: add --create");
    expect(ledgerOf(emulator).creates).toBe(1);

    const again = await cli(["reports", "retry", String(job!.id), "--create", "--db", db]);
    expect(again.err).toContain("a new create, costs 10 credits");
    expect(again.code).toBe(1);
    expect(ledgerOf(emulator).creates).toBe(2);
    expect((await jobs(w)).map((j) => j.status)).toEqual(["failed", "failed"]);
  });

  it("retry under --max-credits refuses a report operation priced 0 unless --allow-unpriced (issue 44)", async () => {
    const { emulator, client, db, w } = await setup({ reportPendingPolls: 12, reportParts: 1 });
    const p = fastFile();
    const timedOut = { ...p, report: { ...p.report!, poll: { ...p.report!.poll, timeout: "15ms" } } };
    await run(w, client, timedOut, { connection: ["5"], ...RANGE });
    const [job] = await jobs(w);
    const before = ledgerOf(emulator);
    const prices = join(dirname(p.file), "zero-prices.yaml");
    writeFileSync(prices, `${p.report!.download}: 0\n`);

    const args = [
      "reports",
      "retry",
      String(job!.id),
      "--db",
      db,
      "--max-credits",
      "100",
      "--prices",
      prices,
    ];
    const refused = await cli(args);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      `${p.report!.download} is priced 0 by the price file: --max-credits 100 cannot bind on it`,
    );
    expect(ledgerOf(emulator)).toEqual(before);
    expect((await jobs(w)).map((j) => j.status)).toEqual(["timeout"]);

    const allowed = await cli([...args, "--allow-unpriced"]);
    expect(allowed.err).toContain(`warning: --allow-unpriced: ${p.report!.download} is priced 0`);
    expect(allowed.code).toBe(0);
    expect((await jobs(w)).map((j) => j.status)).toEqual(["done"]);
  });

  it("exits 4 when the connection has no advertising access", async () => {
    const { emulator, db } = await setup({ deniedConnections: [9] });
    const r = await cli(["run", fastFile().file, "--param", "connection=9", "--db", db, "--json"]);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.out)).toMatchObject({ authFailure: true, status: "failed" });
    expect(emulator.ledger().totalCredits).toBe(0);
  });
});
