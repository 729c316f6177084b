/**
 * Forked by memory.ts, one process per scenario so each peak RSS is that scenario's alone (the
 * emulator runs in a process of its own). Prints one JSON line: baseline, peak, RSS by quarter.
 *   memory-child.ts report ROWS [pgUrl] | calls COUNT [pgUrl] | patents IDENTIFIERS [pgUrl]
 */
import { keepHeapSmall } from "../cli/heap.js";
import { SkillClient } from "../connectors/skill-api/client.js";
import { knownPublicationNumber } from "../emulator/generate/patent-numbers.js";
import { DEMO_KEY } from "../emulator/index.js";
import { Rng } from "../emulator/random.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { runPipelines } from "../engine/run/runner.js";
import { startEmulatorProcess } from "./emulator-process.js";
import { marketplaceRun, workspace } from "./workload.js";

// As the CLI sets its own process up.
keepHeapSmall();

const [scenario, sizeText, pgUrl] = process.argv.slice(2);
const size = Number(sizeText);

const emu = await startEmulatorProcess(
  scenario === "report" ? { reportPendingPolls: 0, reportParts: 1, reportRowsPerPart: size } : {},
);
const ws = await workspace(emu.url, pgUrl || undefined);
global.gc?.();
const baseline = process.memoryUsage().rss;
const samples: [number, number][] = [];
let atPeak: NodeJS.MemoryUsage = process.memoryUsage();
const started = performance.now();
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  if (m.rss > atPeak.rss) atPeak = m;
  samples.push([performance.now(), m.rss]);
}, 50);

let status: string;
let done: number;
if (scenario === "report") {
  const client = new SkillClient({ baseUrl: emu.url, apiKey: DEMO_KEY, bodyTimeoutMs: 900_000 });
  const base = loadPipeline("ads-sp-search-impression-share");
  const pipeline = { ...base, report: { ...base.report!, poll: { ...base.report!.poll, initial: "10ms" } } };
  const s = await runPipelines({
    warehouse: ws.warehouse,
    client,
    pipelines: [pipeline],
    // One report for the range: the pipeline makes one per day by default (window step 1d).
    params: { connection: ["5"], start: ["2025-01-01"], end: ["2025-03-31"], step: ["range"] },
  });
  await client.close();
  status = s.status;
  done = s.counters.rowsWritten;
} else if (scenario === "patents") {
  // Bibliographies of `size` distinct patents, in the pipeline's batches of 100 identifiers.
  const s = await runPipelines({
    warehouse: ws.warehouse,
    client: ws.client,
    pipelines: [loadPipeline("patent-bibliography")],
    params: { patent: distinctPatents(size) },
    // The CLI's default; at 8, 194–204 MB (docs/benchmarks.md).
    concurrency: 4,
  });
  status = s.status;
  done = s.counters.callsDone;
} else {
  const s = await marketplaceRun(ws, size, 16);
  status = s.status;
  done = s.counters.callsDone;
}
const ended = performance.now();
clearInterval(sampler);
const quarter = (q: number) => {
  const from = started + ((ended - started) * q) / 4;
  const to = started + ((ended - started) * (q + 1)) / 4;
  return Math.max(0, ...samples.filter(([t]) => t >= from && t <= to).map(([, rss]) => rss));
};
console.log(
  JSON.stringify({
    scenario,
    size,
    status,
    done,
    seconds: (ended - started) / 1000,
    baselineRss: baseline,
    peakRss: process.resourceUsage().maxRSS * 1024,
    quarters: [0, 1, 2, 3].map(quarter),
    // Where the highest sampled RSS was: V8 heap, buffers outside it.
    atPeak: { heapTotal: atPeak.heapTotal, heapUsed: atPeak.heapUsed, external: atPeak.external },
  }),
);
await ws.close();
await emu.stop();

function distinctPatents(n: number): string[] {
  const rng = new Rng(11);
  const seen = new Set<string>();
  while (seen.size < n) seen.add(knownPublicationNumber(rng));
  return [...seen];
}
