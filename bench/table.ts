/** The human-readable table of a bench result (`npm run bench`, or `--print result.json`). */

import type { ExportFigure } from "./export.js";
import type { LoadFigure } from "./load-throughput.js";
import type { MemoryFigure } from "./memory.js";
import type { OverheadFigure } from "./overhead.js";
import type { RateLimitedFigure } from "./rate-limited.js";
import type { SaturationFigure } from "./saturation.js";
import type { ScalingFigure } from "./scaling.js";
import { grouped, mb, round, spread } from "./stats.js";
import type { WatchFigure } from "./watches.js";

export interface BenchResult {
  machine: { cores: number; cpu: string; node: string; postgres: string; date: string };
  settings: { runs: number; latencyMs: number; [name: string]: unknown };
  load: LoadFigure[];
  saturation: SaturationFigure[];
  overhead: OverheadFigure[];
  memory: MemoryFigure[];
  /** Absent in results saved before workers existed. */
  scaling?: ScalingFigure[];
  /** Absent in results saved before rate control. */
  rateLimited?: RateLimitedFigure[];
  /** Absent in results saved before `skillsync export`. */
  export?: ExportFigure[];
  /** Absent in results saved before watches (issue 46). */
  watches?: WatchFigure[];
}

export function table(r: BenchResult): string {
  const lines: string[] = [];
  const row = (...cells: (string | number)[]) =>
    lines.push(cells.map((c, i) => (i === 0 ? String(c).padEnd(42) : String(c).padStart(12))).join(""));
  lines.push(
    `skillsync bench — ${r.machine.cores} cores (${r.machine.cpu}), Node ${r.machine.node}, ${r.machine.postgres}, ${r.machine.date.slice(0, 10)}`,
    `medians of ${r.settings.runs} runs (saturation and per-call: ${Math.min(r.settings.runs, 3)}); references measured in this run`,
    "",
  );
  if (r.load.length) {
    lines.push("1. Load throughput, rows/s (target ≥ 0.8 of raw); g = responses per transaction");
    row("", "skillsync", "raw driver", "ratio", "each run");
    for (const f of r.load) {
      row(
        `${f.database} ${f.shape}, g = ${f.group ?? 1} (${grouped(f.rows)} rows)`,
        grouped(f.skillsyncRowsPerSecond),
        grouped(f.rawRowsPerSecond),
        round(f.ratio),
        spread(f.runRatios),
      );
    }
    lines.push("");
  }
  if (r.saturation.length) {
    lines.push(`2. Runner saturation, calls/s with L = ${r.settings.latencyMs} ms (target ≥ 0.95 of C/L)`);
    row("", "calls/s", "C/L", "ratio", "each run", "bare ratio");
    for (const f of r.saturation)
      row(
        `C = ${f.concurrency}${f.latencyMs === r.settings.latencyMs ? "" : `, L = ${f.latencyMs} ms`} (${f.calls} calls)`,
        round(f.callsPerSecond, 1),
        f.idealCallsPerSecond,
        round(f.ratio),
        spread(f.runRatios),
        f.bareCallsPerSecond === undefined ? "–" : round(f.bareCallsPerSecond / f.idealCallsPerSecond),
      );
    lines.push("");
  }
  if (r.overhead.length) {
    lines.push("3. Per-call CPU in skillsync's process, ms (target < 0.5)");
    row("", "skillsync", "bare HTTP", "ratio", "each run", "+ raw write");
    for (const f of r.overhead)
      row(
        `${f.database} (${f.calls} calls, C = ${f.concurrency})`,
        round(f.cpuMsPerCall, 3),
        round(f.referenceCpuMsPerCall, 3),
        round(f.ratio, 1),
        spread(f.runRatios, 1),
        f.floorCpuMsPerCall === undefined ? "–" : round(f.floorCpuMsPerCall, 3),
      );
    if (r.overhead.some((f) => f.floorCpuMsPerCall !== undefined))
      lines.push(
        "   + raw write: the bare HTTP call plus the raw driver writing the same pages' rows into the",
        "   same table, 16 pages per transaction — what any loader of these pages costs at least",
      );
    marginalTable(r.overhead, row, lines);
    lines.push("");
  }
  if (r.memory.length) {
    lines.push("4. Peak RSS, MB (target < 200, flat: ratio to a tenth of the work ≈ 1)");
    row("", "peak", "tenth", "ratio");
    for (const f of r.memory) {
      row(memoryLabel(f), mb(f.peakRss), mb(f.referencePeakRss), round(f.ratio));
    }
    lines.push("");
  }
  if (r.scaling?.length) {
    lines.push("5. Workers (Postgres, pg-boss), calls/s (target ≥ 0.9 of W·C/L below the CPU bound)");
    row("", "calls/s", "W·C/L", "ratio", "each run", "workers", "postgres", "emulator", "coord.");
    for (const f of r.scaling) {
      const cpu = (ms: number) => round(ms / f.runMs, 2);
      row(
        `L = ${f.latencyMs} ms, W = ${f.workers} × C = ${f.concurrency} (${f.calls} calls)`,
        round(f.callsPerSecond, 1),
        f.idealCallsPerSecond === null ? "CPU-bound" : round(f.idealCallsPerSecond, 1),
        f.ratio === null ? "–" : round(f.ratio),
        f.idealCallsPerSecond === null
          ? spread(f.runRates, 0)
          : spread(f.runRates.map((x) => x / f.idealCallsPerSecond!)),
        cpu(f.cpuMs.workers),
        cpu(f.cpuMs.postgres),
        cpu(f.cpuMs.emulator),
        cpu(f.cpuMs.coordinator),
      );
    }
    lines.push(
      "   workers … coord.: cores each party used over the run (the worker processes, every Postgres",
      "   server process, the emulator, the process coordinating the run); each run at L = 0: calls/s",
    );
    lines.push("");
  }
  if (r.rateLimited?.length) {
    const f0 = r.rateLimited[0]!;
    lines.push(
      `6. Under a rate limit of ${f0.limitPerSecond}/s it is not told of, L = ${f0.latencyMs} ms, ${f0.calls} calls`,
      "   (target: paid ≥ 0.9 of the limit, ≤ 0.05 refusals per paid call, 0 failed; declared ≤ 0.01)",
    );
    row("", "paid/s", "limit", "ratio", "429s/paid", "failed", "outcome");
    for (const f of r.rateLimited)
      row(
        f.setup,
        round(f.paidPerSecond, 1),
        f.limitPerSecond,
        round(f.ratio),
        round(f.refusalsPerPaidCall, 3),
        f.failedCalls,
        f.status,
      );
    lines.push("");
  }
  if (r.export?.length) {
    lines.push(
      "7. Export of a SQLite table to Parquet (target ≤ 30 s and < 300 MB peak RSS; tenth: a tenth of the rows)",
    );
    row("", "seconds", "peak MB", "tenth s", "tenth MB", "rows/s", "file MB");
    for (const f of r.export)
      row(
        `${grouped(f.rows)} rows, marketplace table`,
        round(f.seconds, 1),
        mb(f.peakRss),
        round(f.reference.seconds, 1),
        mb(f.reference.peakRss),
        grouped(f.rows / f.seconds),
        mb(f.full.fileBytes),
      );
    lines.push(
      "   peak: the export process and its SQLite reader process together (DuckDB runs in the first)",
    );
    lines.push("");
  }
  watchTable(r.watches ?? [], row, lines);
  return lines.join("\n");
}

/** Figure 8 (issue 46): the load that changed every key, without and with the watches. */
function watchTable(
  figures: WatchFigure[],
  row: (...cells: (string | number)[]) => void,
  lines: string[],
): void {
  if (!figures.length) return;
  lines.push(
    `8. Watches: seconds of a load that changed all ${grouped(figures[0]!.keys)} keys of a history table, medians of runs (target ≤ 1.10)`,
  );
  row("", "without", "with", "ratio", "each run", "alerts", "floor", "outcome");
  for (const f of figures)
    row(
      `${f.database}, ${f.watches} watches, ${f.mix}, g = ${f.group}`,
      round(f.medianWithoutSeconds, 2),
      round(f.medianWithSeconds, 2),
      round(f.pairRatio ?? f.ratio),
      spread(f.runRatios),
      grouped(f.alerts),
      f.floorRatio === undefined ? "" : round(f.floorRatio),
      watchOutcome(f),
    );
  lines.push(
    "   without / with: the second load (its transactions and its end, where digests are written),",
    "   alternating, each in a fresh warehouse; ratio: the median of each run's own ratio (results",
    "   saved before it: the best runs'); alerts: what the watched load recorded; floor: the",
    "   ratio if the watches cost only writing that many alert rows with the load's own bulk writer;",
    "   quiet: conditions that hold for ~1 % of the keys; lists: every watch names 500 keys, with",
    "   broad conditions; every-key: a tenth of those watch every key instead; *: the floor itself",
    "   is above the target",
    "",
  );
}

/** Met; or not, marked when the target is below the floor that writing the alerts sets. */
function watchOutcome(f: WatchFigure): string {
  if ((f.pairRatio ?? f.ratio) <= 1.1) return "met";
  return f.floorRatio !== undefined && f.floorRatio > 1.1 ? "not met*" : "not met";
}

/** Figure 3's second part (issue 31), for the figures that have it (SQLite, results saved since). */
function marginalTable(
  figures: OverheadFigure[],
  row: (...cells: (string | number)[]) => void,
  lines: string[],
): void {
  const measured = figures.filter((f) => f.marginalRatio !== undefined);
  if (!measured.length) return;
  lines.push(
    "",
    "   Marginal CPU per call, ms: (run of n calls − run of n/4) / (3n/4) (target ≤ 1.1 of the hand loader)",
  );
  row("", "skillsync", "hand loader", "ratio", "each run", "hand, all");
  for (const f of measured)
    row(
      `${f.database} (${f.calls} calls, C = ${f.concurrency})`,
      round(f.marginalCpuMsPerCall!, 3),
      round(f.handMarginalCpuMsPerCall!, 3),
      round(f.marginalRatio!, 2),
      spread(f.runMarginalRatios),
      f.handCpuMsPerCall === undefined ? "–" : round(f.handCpuMsPerCall, 3),
    );
  lines.push(
    "   hand loader: written by hand, Node's fetch + better-sqlite3 upserts, one transaction per page,",
    "   into skillsync's table (bench/hand-loader.ts); hand, all: its CPU over a run of n, per call",
  );
}

function memoryLabel(f: MemoryFigure): string {
  if (f.scenario === "report") return `report part of ${grouped(f.size)} rows`;
  if (f.scenario === "patents") return `bibliographies of ${grouped(f.size)} patents, batches of 100`;
  return `run of ${grouped(f.size)} calls`;
}
