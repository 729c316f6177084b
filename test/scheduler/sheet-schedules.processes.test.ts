import { describe, it } from "vitest";
import { twoServersTrial } from "./sheet-serve.js";

// On SQLite here (a 4-second cron); the reliability suite runs the same trial on Postgres, where it
// has it, on the one-minute cron the issue names (test/reliability/sheet-schedule-minute.test.ts).
describe("sheet schedules fired by serve (sqlite)", () => {
  it(
    "two servers on one warehouse run each tick once under its cap, replace the tab and note it; none after DELETE",
    () => twoServersTrial("sqlite", "*/4 * * * * *", 2, 90_000),
    180_000,
  );
});
