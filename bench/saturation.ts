/**
 * Figure 2: whether the runner keeps exactly C calls in flight. The emulator (own process) adds a
 * fixed latency L to every answer; a run of C × rounds calls at concurrency C should then take
 * rounds × L, i.e. reach C / L calls per second. Timed from the first call sent to the last
 * call's rows committed (the run's own set-up — migrations check, run row — is reported apart).
 * Beside it, the bare HTTP client's own rate at the same C and L (same run): what this machine and
 * the emulator allow at all, so a shortfall can be told apart from the runner's.
 */
import type { SkillCaller } from "../engine/run/runner.js";
import { startEmulatorProcess } from "./emulator-process.js";
import { bareCalls } from "./overhead.js";
import { median } from "./stats.js";
import { marketplaceRun, workspace } from "./workload.js";

export interface SaturationFigure {
  concurrency: number;
  latencyMs: number;
  calls: number;
  callsPerSecond: number;
  /** C / L: the reference. */
  idealCallsPerSecond: number;
  ratio: number;
  /** Each run's own ratio to C / L. */
  runRatios: number[];
  /** The bare HTTP client at the same C and L, calls/s (median of the same number of runs). */
  bareCallsPerSecond?: number;
  /** Median time from runPipelines() to the first call sent. */
  setupMs: number;
  runs: number;
}

export async function saturation(o: {
  latencyMs: number;
  concurrencies: number[];
  rounds: number;
  runs: number;
  pgUrl?: string | undefined;
}): Promise<SaturationFigure[]> {
  const emu = await startEmulatorProcess({ latencyMs: o.latencyMs });
  const out: SaturationFigure[] = [];
  try {
    for (const c of o.concurrencies) {
      const rates: number[] = [];
      const bare: number[] = [];
      const setups: number[] = [];
      const n = c * o.rounds;
      for (let r = 0; r < o.runs; r++) {
        const ws = await workspace(emu.url, o.pgUrl);
        try {
          await marketplaceRun(ws, 2, 2); // tables, migrations, JIT
          let first = 0;
          let last = 0;
          const client: SkillCaller = {
            prepare: ws.client.prepare.bind(ws.client),
            send: (prepared, opts) => {
              first ||= performance.now();
              return ws.client.send(prepared, opts);
            },
          };
          const started = performance.now();
          const s = await marketplaceRun(ws, n, c, {
            client,
            reporter: {
              update: (counters) => {
                if (counters.callsDone === n && !last) last = performance.now();
              },
            },
          });
          if (s.status !== "succeeded" || s.counters.callsDone !== n) {
            throw new Error(`saturation run ended ${s.status} after ${s.counters.callsDone}/${n} calls`);
          }
          rates.push(n / ((last - first) / 1000));
          setups.push(first - started);
          bare.push((await bareCalls(emu.url, n, c)).callsPerSecond);
        } finally {
          await ws.close();
        }
      }
      const callsPerSecond = median(rates);
      const idealCallsPerSecond = c / (o.latencyMs / 1000);
      out.push({
        concurrency: c,
        latencyMs: o.latencyMs,
        calls: n,
        callsPerSecond,
        idealCallsPerSecond,
        ratio: callsPerSecond / idealCallsPerSecond,
        runRatios: rates.map((r) => r / idealCallsPerSecond),
        bareCallsPerSecond: median(bare),
        setupMs: median(setups),
        runs: o.runs,
      });
    }
  } finally {
    await emu.stop();
  }
  return out;
}
