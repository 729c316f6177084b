import { describe, expect, it } from "vitest";
import { loadPipeline } from "../../../../engine/define/pipeline-file.js";
import { readScheduleViews } from "../../../../engine/publish/console/schedule-views.js";
import { nextTimes } from "../../../../schema/schedule-times.js";
import { migrateToLatest } from "../../../../store/migrate.js";
import {
  acquireSlot,
  claimTick,
  ensureStates,
  finishSlot,
  pauseSchedule,
  readState,
  resumeSchedule,
} from "../../../../store/schedule-state.js";
import { addSheetSchedule, sheetScheduleKey } from "../../../../store/sheet-schedules.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";
import { openTracked, tempDir, writeScheduledPipeline } from "../../../scheduler/fixtures.js";

const ME = { host: "console-test", pid: process.pid };

describe.each(WAREHOUSE_KINDS)("the console's schedules on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    async function setUp() {
      const w = await openTracked(freshWarehouseUrl(kind));
      await migrateToLatest(w);
      const dir = tempDir();
      const nightly = loadPipeline(
        writeScheduledPipeline(dir, {
          name: "nightly",
          cron: "0 6 * * *",
          schedule: "  timezone: Europe/Berlin",
        }),
      );
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
      return { w, nightly, sheet, sheetKey: sheetScheduleKey(sheet.id) };
    }

    /** A tick of `key` that ran and ended with `status`, as the scheduler records it. */
    async function ranTick(
      w: Awaited<ReturnType<typeof setUp>>["w"],
      key: string,
      at: string,
      status: string,
    ) {
      const tickAt = new Date(at);
      await ensureStates(w, [key]);
      expect(await claimTick(w, { pipeline: key, tickAt, status: "fired", owner: ME })).toBe(true);
      expect((await acquireSlot(w, key, tickAt, ME)).ok).toBe(true);
      await finishSlot(w, {
        pipeline: key,
        tickAt,
        runId: `r-${key}`,
        status,
        failed: false,
        maxFailures: 3,
      });
    }

    it("shows pipeline and sheet schedules with their next time and last outcome", async () => {
      const { w, nightly, sheetKey } = await setUp();
      await ranTick(w, "nightly", "2026-11-28T05:00:00.000Z", "succeeded");
      await ranTick(w, sheetKey, "2026-11-23T07:30:00.000Z", "warnings");
      const views = await readScheduleViews(w, [nightly, loadPipeline("marketplace-search")]);
      const byKey = new Map(views.map((v) => [v.key, v]));
      expect(views.map((v) => v.key).sort()).toEqual(["nightly", sheetKey].sort());
      expect(byKey.get("nightly")).toEqual({
        kind: "pipeline",
        key: "nightly",
        pipeline: "nightly",
        cron: "0 6 * * *",
        timezone: "Europe/Berlin",
        target: null,
        nextRunAt: nextTimes("0 6 * * *", "Europe/Berlin", 1)[0]!.toISOString(),
        paused: false,
        pausedReason: null,
        last: { at: "2026-11-28T05:00:00.000Z", status: "succeeded", runId: "r-nightly" },
      });
      expect(byKey.get(sheetKey)).toMatchObject({
        kind: "sheet",
        pipeline: "marketplace-search",
        target: 'book-1 → tab "Hubs"',
        nextRunAt: nextTimes("30 7 * * 1", "UTC", 1)[0]!.toISOString(),
        last: { at: "2026-11-23T07:30:00.000Z", status: "warnings", runId: `r-${sheetKey}` },
      });
      const next = views.map((v) => v.nextRunAt!);
      expect(next).toEqual([...next].sort());
    });

    it("pauses a schedule (making its state row) until resumed, and lists the paused ones last", async () => {
      const { w, nightly, sheetKey } = await setUp();
      expect(await readState(w, sheetKey)).toBeUndefined();
      expect(await pauseSchedule(w, sheetKey, "paused from the console")).toBe(true);
      expect(await pauseSchedule(w, sheetKey, "again")).toBe(false);
      expect(await readState(w, sheetKey)).toMatchObject({
        paused: true,
        pausedReason: "paused from the console",
      });
      let views = await readScheduleViews(w, [nightly]);
      expect(views.map((v) => [v.key, v.paused, v.pausedReason])).toEqual([
        ["nightly", false, null],
        [sheetKey, true, "paused from the console"],
      ]);
      expect(await resumeSchedule(w, sheetKey)).toBe(true);
      views = await readScheduleViews(w, [nightly]);
      expect(views.find((v) => v.key === sheetKey)).toMatchObject({ paused: false, pausedReason: null });
    });
  });
});
