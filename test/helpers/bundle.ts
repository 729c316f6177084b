import { execFile } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Entry points compiled from source into one file each, so the many processes the tests start
 * cost a fraction of a second to start instead of seconds of per-file compiling under
 * `node --import tsx` (2.8–4 s of CPU each on the 2-core machine, 1–1.5 s for a bundle). The same
 * code: esbuild is what tsx compiles with (it comes with tsx). Written under node_modules/.cache,
 * so the package root (package.json, pipelines/) and its packages are found from there as from
 * the sources.
 *
 * @example
 * await bundleSources(["cli/run.ts"], dir); // then: node <dir>/cli/run.mjs serve …
 */
export async function bundleSources(sources: string[], dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: Object.fromEntries(sources.map((s) => [entryName(s), join(ROOT, s)])),
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error",
  });
}

/** Where `bundleSources` put a source's bundle (`cli/run.ts` → `<dir>/cli/run.mjs`). */
export function bundledPath(dir: string, source: string): string {
  return join(dir, `${entryName(source)}.mjs`);
}

/** A source as a path from the repository's root, without its extension. */
function entryName(source: string): string {
  return (isAbsolute(source) ? relative(ROOT, source) : source).replace(/\.ts$/, "");
}

/** A fresh folder for bundles under node_modules/.cache, and its removal. */
export function bundleFolder(tag: string): { dir: string; remove(): void } {
  const dir = join(ROOT, "node_modules", ".cache", `skillsync-${tag}-${process.pid}-${Date.now()}`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The console's script and stylesheet rebuilt (dist/web/, by the script `prepare` and `npm run
 * build` run), so the server's pages and the browser tests never serve a bundle older than web/.
 */
export async function buildWebAssets(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(ROOT, "scripts", "build-web.mjs")]);
}
