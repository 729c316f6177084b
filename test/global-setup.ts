import { buildWebAssets, bundleFolder, bundleSources } from "./helpers/bundle.js";
import { describeLeftovers, findLeftovers, reapLeftovers } from "./helpers/leftovers.js";
import { BUNDLE_DIR_ENV, SPAWNED_SOURCES } from "./helpers/node-entry.js";
import { markRun } from "./helpers/run-marker.js";

/** How long processes still ending when the last test finished get before they count as left. */
const GRACE_MS = 10_000;

/**
 * Compiles the entry points the main suite starts as processes (the CLI, the run children) once,
 * before any test file runs: each process then starts from one file, not under tsx. The folder
 * reaches the test workers through the environment; it is removed at the end.
 *
 * The console's script and stylesheet are rebuilt too (dist/web/, as `prepare` builds them), so the
 * server's pages and the browser tests never serve a bundle older than web/.
 *
 * It also marks the run in the environment (test/helpers/run-marker.ts): once all tests are done,
 * a process a test started that is still alive, with the ports it listens on, is killed and fails
 * the suite.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const marker = markRun();
  const folder = bundleFolder("test");
  try {
    await Promise.all([bundleSources([...SPAWNED_SOURCES], folder.dir), buildWebAssets()]);
  } catch (err) {
    // No teardown runs when the setup fails: the folder goes now.
    folder.remove();
    throw err;
  }
  process.env[BUNDLE_DIR_ENV] = folder.dir;
  return async () => {
    const left = await reapLeftovers(() => findLeftovers(marker, process.pid), GRACE_MS);
    folder.remove();
    if (!left.length) return;
    // vitest prints an error thrown by a global teardown but still exits 0: the exit code says it.
    process.exitCode = 1;
    throw new Error(
      `${left.length} process(es) the tests started outlived them (killed now); the test that started each must stop it (afterTest):\n${describeLeftovers(left)}`,
    );
  };
}
