import { describe, expect, it } from "vitest";
import { migrateToLatest } from "../../store/migrate.js";
import { ensureStates, readState } from "../../store/schedule-state.js";
import { addSheetSchedule, sheetScheduleKey } from "../../store/sheet-schedules.js";
import { cli } from "../helpers/cli.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { openTracked } from "../scheduler/fixtures.js";

describe("skillsync schedule pause", () => {
  it("pauses a known schedule until resume, says when it already was, and refuses an unknown name", async () => {
    const db = freshWarehouseUrl("sqlite");
    const w = await openTracked(db);
    await migrateToLatest(w);
    await ensureStates(w, ["nightly"]);
    const sheet = await addSheetSchedule(w, {
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub"] },
      cron: "30 7 * * 1",
      timezone: "UTC",
      maxCredits: 5,
      spreadsheet: "book-1",
      tab: "Hubs",
      mode: "replace",
    });

    const paused = await cli(["schedule", "pause", "nightly", "--reason", "supplier down", "--db", db]);
    expect(paused.code, paused.err).toBe(0);
    expect(paused.out).toContain("paused nightly; resume: skillsync schedule resume nightly");
    expect(await readState(w, "nightly")).toMatchObject({ paused: true, pausedReason: "supplier down" });
    const again = await cli(["schedule", "pause", "nightly", "--db", db]);
    expect(again.out).toContain("nightly was already paused (supplier down)");

    const resumed = await cli(["schedule", "resume", "nightly", "--db", db]);
    expect(resumed.out).toContain("resumed nightly (was paused: supplier down)");
    expect(await readState(w, "nightly")).toMatchObject({ paused: false, pausedReason: null });

    // A sheet schedule that never fired has no state row yet: pausing makes it.
    const key = sheetScheduleKey(sheet.id);
    expect((await cli(["schedule", "pause", key, "--db", db])).code).toBe(0);
    expect(await readState(w, key)).toMatchObject({ paused: true, pausedReason: "paused by hand" });

    const unknown = await cli(["schedule", "pause", "nope", "--db", db]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no schedule named "nope" in this warehouse');
    expect(await readState(w, "nope")).toBeUndefined();
  });
});
