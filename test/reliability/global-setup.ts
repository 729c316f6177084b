import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWebAssets, bundleFolder, bundleSources } from "../helpers/bundle.js";
import { BUNDLE_DIR_ENV, SPAWNED_SOURCES } from "../helpers/node-entry.js";
import { dropSchemas, emptyCounts, scanFolder, scanPostgres } from "./support/scan.js";
import { checkScanner } from "./support/scan-check.js";
import { summarise } from "./support/summary.js";

/**
 * Creates the folder every test file of the suite writes into, and at the very end scans all of
 * it (files, SQLite tables, Postgres schemas of the suite, stored responses) for the suite's
 * secrets, prints the figures and writes test/reliability/results.json.
 *
 * Like the main suite's (test/global-setup.ts), it first compiles the entry points the kill and
 * process trials start (the CLI, the run children) into one file each: those trials start many
 * processes, each in a fraction of a second instead of seconds under tsx. The folder goes at the end.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const bundles = bundleFolder("reliability");
  try {
    // The console's assets as well: the console's browser trial serves them.
    await Promise.all([bundleSources([...SPAWNED_SOURCES], bundles.dir), buildWebAssets()]);
  } catch (err) {
    // No teardown runs when the setup fails: the folder goes now.
    bundles.remove();
    throw err;
  }
  process.env[BUNDLE_DIR_ENV] = bundles.dir;
  const dir = mkdtempSync(join(tmpdir(), "skillsync-reliability-"));
  const tag = randomBytes(3).toString("hex");
  process.env["SKILLSYNC_RELIABILITY_DIR"] = dir;
  process.env["SKILLSYNC_RELIABILITY_TAG"] = tag;
  const started = Date.now();

  return async () => {
    bundles.remove();
    checkScanner();
    const counts = emptyCounts();
    scanFolder(dir, counts);
    const pgUrl = process.env["SKILLSYNC_TEST_POSTGRES_URL"];
    const schemas = pgUrl ? await scanPostgres(pgUrl, `rel_${tag}_`, counts) : [];
    const leaks = counts.leaks;
    summarise(dir, counts, { seconds: Math.round((Date.now() - started) / 1000), schemas: schemas.length });
    if (leaks.length) {
      // vitest reports a teardown error but still exits 0: the exit code says it.
      process.exitCode = 1;
      throw new Error(
        `secrets leaked (${leaks.length}); everything is kept in ${dir}:\n${leaks
          .slice(0, 20)
          .map((l) => `  ${l.secret} in ${l.where}`)
          .join("\n")}`,
      );
    }
    if (process.env["SKILLSYNC_RELIABILITY_KEEP"]) return;
    if (pgUrl) await dropSchemas(pgUrl, schemas);
    rmSync(dir, { recursive: true, force: true });
  };
}
