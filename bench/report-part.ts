/**
 * Loads one report part of N CSV rows (default 1,000,000) through the real pipeline: create,
 * poll, download, stream-parse, insert in batches inside one transaction. The emulator runs in a
 * child process so this process's memory is the loader's alone; RSS is sampled every 50 ms.
 *
 *   node --import tsx bench/report-part.ts [--rows 1000000] [--db /tmp/bench.db | postgres://…?schema=bench]
 *
 * The part arrives as one JSON string (the contract's download gives `content` as text), so the
 * text itself is in memory once; the rows never are: peak RSS stays near baseline + a few times
 * the text size, whatever the row count, instead of growing with one object per row.
 */
import { fork } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SkillClient } from "../connectors/skill-api/client.js";
import { openWarehouse } from "../connectors/warehouse/open.js";
import { DEMO_KEY, startEmulator } from "../emulator/index.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { runPipelines } from "../engine/run/runner.js";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const rows = Number(arg("rows", "1000000"));

if (process.argv.includes("--serve")) {
  const emu = await startEmulator({
    port: 0,
    reportPendingPolls: 0,
    reportParts: 1,
    reportRowsPerPart: rows,
  });
  process.on("message", async () => {
    await emu.stop();
    process.disconnect();
  });
  process.send?.({ port: emu.port });
} else {
  const child = fork(fileURLToPath(import.meta.url), ["--serve", "--rows", String(rows)], {
    execArgv: ["--import", "tsx"],
  });
  const port = await new Promise<number>((resolve) =>
    child.once("message", (m: { port: number }) => resolve(m.port)),
  );
  const db = arg("db", join(mkdtempSync(join(tmpdir(), "skillsync-bench-")), "bench.db"));
  const warehouse = await openWarehouse(db);
  const client = new SkillClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: DEMO_KEY,
    bodyTimeoutMs: 600_000,
  });
  const base = loadPipeline("ads-sp-search-impression-share");
  const pipeline = { ...base, report: { ...base.report!, poll: { ...base.report!.poll, initial: "10ms" } } };
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const summary = await runPipelines({
    warehouse,
    client,
    pipelines: [pipeline],
    // One report for the range: the pipeline makes one per day by default (window step 1d).
    params: { connection: ["5"], start: ["2025-01-01"], end: ["2025-03-31"], step: ["range"] },
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  console.log(
    JSON.stringify(
      {
        warehouse: warehouse.description,
        status: summary.status,
        rows: summary.counters.rowsWritten,
        seconds: Number(seconds.toFixed(1)),
        rowsPerSecond: Math.round(summary.counters.rowsWritten / seconds),
        baselineRss: mb(baseline),
        peakRss: mb(Math.max(peak, process.resourceUsage().maxRSS * 1024)),
      },
      null,
      2,
    ),
  );
  await warehouse.close();
  await client.close();
  child.send("stop");
}
