/**
 * Figure 4: peak RSS while loading a one-million-row report part and while running many calls,
 * each in a child process of its own. The reference, same run: the same scenario at a tenth of
 * the size. Memory that does not grow with the work gives a ratio near 1 ("flat").
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export interface MemoryRun {
  scenario: string;
  size: number;
  status: string;
  done: number;
  seconds: number;
  baselineRss: number;
  peakRss: number;
  /** Highest RSS in each quarter of the run's time. */
  quarters: number[];
}

export interface MemoryFigure {
  scenario: "report" | "calls" | "patents";
  size: number;
  peakRss: number;
  /** The same scenario at a tenth of the size. */
  referenceSize: number;
  referencePeakRss: number;
  ratio: number;
  full: MemoryRun;
  reference: MemoryRun;
}

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The CLI runs compiled JavaScript (bin → dist), so the memory figures do too: tsx keeps every
 * transpiled module and its source map in memory (about 60 MB more). Compiled once per bench run
 * into node_modules/.cache/skillsync-bench (type errors do not stop the emit).
 */
export async function compileForMemory(): Promise<string> {
  const out = `${root}node_modules/.cache/skillsync-bench/bench/memory-child.js`;
  await run(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}bench/tsconfig.bench.json`],
    {
      maxBuffer: 16 << 20,
    },
  ).catch((err: { stdout?: string }) => {
    if (!existsSync(out)) throw new Error(`could not compile the bench: ${err.stdout ?? String(err)}`);
  });
  return out;
}

async function child(script: string, scenario: string, size: number, pgUrl: string | undefined) {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", script, scenario, String(size), pgUrl ?? ""],
    { maxBuffer: 1 << 20, timeout: 1_800_000 },
  );
  const line = stdout.trim().split("\n").at(-1) ?? "";
  const r = JSON.parse(line) as MemoryRun;
  if (r.status !== "succeeded") throw new Error(`${scenario} ${size} ended ${r.status}`);
  return r;
}

export async function memory(
  script: string,
  scenario: "report" | "calls" | "patents",
  size: number,
  pgUrl?: string | undefined,
): Promise<MemoryFigure> {
  const reference = await child(script, scenario, Math.max(1, Math.round(size / 10)), pgUrl);
  const full = await child(script, scenario, size, pgUrl);
  return {
    scenario,
    size,
    peakRss: full.peakRss,
    referenceSize: reference.size,
    referencePeakRss: reference.peakRss,
    ratio: full.peakRss / reference.peakRss,
    full,
    reference,
  };
}
