import { afterAll, afterEach } from "vitest";
import { undoAfterTest } from "./helpers/after-test.js";
import { removeWrittenPipelineFiles } from "./helpers/pipeline-files.js";

// Run before every test file (even where modules are shared between files): the one hook that
// undoes what the test's helpers started. The test's state is final when afterEach runs.
afterEach(async (context) => {
  await undoAfterTest(context.task.result?.state === "fail");
});

// Pipeline files a test file wrote at its top level serve all its tests: gone after the last.
afterAll(() => {
  removeWrittenPipelineFiles();
});
