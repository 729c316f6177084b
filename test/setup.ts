import { afterAll, afterEach } from "vitest";
import { closeReadOnly } from "../connectors/warehouse/read-only.js";
import { undoAfterTest } from "./helpers/after-test.js";
import { describeLeftovers, ownPorts, reapLeftovers, workerLeftovers } from "./helpers/leftovers.js";
import { removeWrittenPipelineFiles } from "./helpers/pipeline-files.js";
import { markChildProcesses, RUN_MARKER_ENV } from "./helpers/run-marker.js";

/** How long what a test file started gets to end after its last hook before it counts as left. */
const GRACE_MS = 5_000;

// Every process a test starts carries the run's marker, whatever environment the test gives it:
// the global teardown finds by it what outlived the tests (test/global-setup.ts).
markChildProcesses();
// What the worker listened on before this file: an earlier file's leftover, failed there.
const listeningBefore = process.env[RUN_MARKER_ENV] ? ownPorts() : [];

// Run before every test file (even where modules are shared between files): the one hook that
// undoes what the test's helpers started. The test's state is final when afterEach runs.
afterEach(async (context) => {
  await undoAfterTest(context.task.result?.state === "fail");
  // The SQLite reader processes the test's reads left idle would end themselves 5 s later: in the
  // main suite, which fails a file on what it leaves running, they end with the test.
  if (process.env[RUN_MARKER_ENV]) await closeReadOnly();
});

// Pipeline files a test file wrote at its top level serve all its tests: gone after the last.
// Registered before the file's own hooks, this runs after its afterAll: what the worker still
// listens on or runs then, the file left behind (the main suite, whose global setup marks the run).
afterAll(async () => {
  removeWrittenPipelineFiles();
  if (!process.env[RUN_MARKER_ENV]) return;
  const left = await reapLeftovers(() => workerLeftovers(listeningBefore), GRACE_MS);
  if (left.length)
    throw new Error(`this file's tests left running (processes killed now):\n${describeLeftovers(left)}`);
});
