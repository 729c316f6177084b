import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export interface Bundle {
  /** `node <cli> run …`: the CLI (cli/run.ts). */
  cli: string;
  /** `node <childMain> <spec JSON>`: the suite's run process (support/child-main.ts). */
  childMain: string;
  remove(): void;
}

/**
 * The CLI and the suite's run process compiled from source into one file each, so the many
 * processes a trial starts and kills cost a fraction of a second to start instead of seconds of
 * per-file compiling under `node --import tsx` (2.8–4 s of CPU each on the 2-core machine, 1–1.5 s
 * for the bundle). The same code: esbuild is what tsx compiles with (it comes with tsx). Written
 * under node_modules/.cache, so the package root (package.json, pipelines/) and its packages are
 * found from there as from the sources; removed by `remove()`.
 */
export async function bundleEntries(): Promise<Bundle> {
  const dir = join(ROOT, "node_modules", ".cache", `skillsync-reliability-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: {
      cli: join(ROOT, "cli", "run.ts"),
      "child-main": join(ROOT, "test", "reliability", "support", "child-main.ts"),
    },
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error",
  });
  return {
    cli: join(dir, "cli.mjs"),
    childMain: join(dir, "child-main.mjs"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
