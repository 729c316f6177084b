import { bundleFolder, bundleSources } from "./helpers/bundle.js";
import { BUNDLE_DIR_ENV, SPAWNED_SOURCES } from "./helpers/node-entry.js";

/**
 * Compiles the entry points the main suite starts as processes (the CLI, the run children) once,
 * before any test file runs: each process then starts from one file, not under tsx. The folder
 * reaches the test workers through the environment; it is removed at the end.
 */
export default async function setup(): Promise<() => void> {
  const folder = bundleFolder("test");
  await bundleSources([...SPAWNED_SOURCES], folder.dir);
  process.env[BUNDLE_DIR_ENV] = folder.dir;
  return () => folder.remove();
}
