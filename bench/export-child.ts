/**
 * Started by export.ts: exports the marketplace table of a SQLite warehouse to Parquet as
 * `skillsync export` does, and prints one JSON line: rows, seconds, peak RSS (this process and its
 * children, the SQLite reader among them, sampled from /proc; and its own, from getrusage).
 *   export-child.ts WAREHOUSE OUT ROWS
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { keepHeapSmall } from "../cli/heap.js";
import { openWarehouse } from "../connectors/warehouse/open.js";
import { listBuiltinPipelines, loadPipeline } from "../engine/define/pipeline-file.js";
import { exportRows } from "../engine/publish/export.js";
import { pipelineColumnTypes } from "../engine/publish/read-table.js";

keepHeapSmall();

const [path, out, rowsText] = process.argv.slice(2);

/** RSS of a process, bytes (0 when it is gone). */
function rss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** This process's RSS and its children's. */
function familyRss(): number {
  let total = rss(process.pid);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid) total += rss(Number(name));
    } catch {}
  }
  return total;
}

let peak = familyRss();
const sampler = setInterval(() => {
  peak = Math.max(peak, familyRss());
}, 50);
const w = await openWarehouse(path!);
const started = performance.now();
const [r] = await exportRows(w, {
  tables: ["marketplace_search_results"],
  format: "parquet",
  out: out!,
  sinceLast: false,
  types: pipelineColumnTypes(listBuiltinPipelines().map((f) => loadPipeline(f))),
});
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, familyRss());
await w.close();
if (r?.rows !== Number(rowsText)) throw new Error(`exported ${r?.rows} rows, expected ${rowsText}`);
console.log(
  JSON.stringify({
    rows: r.rows,
    seconds,
    // The sampled sum, or the process's own exact peak when that is higher (a peak between samples).
    peakRss: Math.max(peak, process.resourceUsage().maxRSS * 1024),
    ownPeakRss: process.resourceUsage().maxRSS * 1024,
    fileBytes: statSync(out!).size,
  }),
);
