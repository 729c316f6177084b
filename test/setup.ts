import { afterEach } from "vitest";
import { undoAfterTest } from "./helpers/after-test.js";

// Run before every test file (even where modules are shared between files): the one hook that
// undoes what the test's helpers started. The test's state is final when afterEach runs.
afterEach(async (context) => {
  await undoAfterTest(context.task.result?.state === "fail");
});
