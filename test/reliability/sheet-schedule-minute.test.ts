import { describe, it } from "vitest";
import { PG_URL } from "../helpers/warehouses.js";
import { twoServersTrial } from "../scheduler/sheet-serve.js";

// Issue 35's acceptance as written: a one-minute cron (crontab's `* * * * *`), two `serve`
// processes on one warehouse (Postgres where the suite has it, as several machines would share
// it). The main suite runs the same trial on a 4-second cron.
describe("a sheet schedule on a one-minute cron", () => {
  it("fires once per tick across two servers, refreshes the tab each time, and stops at DELETE", () =>
    twoServersTrial(PG_URL ? "postgres" : "sqlite", "* * * * *", 2, 200_000));
});
