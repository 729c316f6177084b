// What the front doors (cli/, server/, mcp/) use of watches and alerts.
export { readAlerts } from "./alerts-read.js";
export { backfillWatch } from "./backfill.js";
export { defineWatch } from "./define-watch.js";
export { removeWatch } from "./remove-watch.js";
export { readWatchFile, watchFilePath } from "./watch-file.js";
export { watchNamed, wouldAlert } from "./watch-test.js";
export { watchWarnings } from "./watch-warnings.js";
