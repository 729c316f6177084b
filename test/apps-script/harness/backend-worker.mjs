// Worker-thread entry: Apps Script's UrlFetchApp.fetch is synchronous, so the test's main thread blocks
// while a request is in flight; the server it talks to therefore lives here, in its own thread.
import { register } from "tsx/esm/api";

register();
await import("./backend.ts");
