import { describe, expect, it } from "vitest";
import { until } from "../helpers/until.js";
import { BOOK, call, rowsOfRun, schedule, setUp, ticksOf } from "./sheet-serve.js";

// What a sheet user sees when a refresh goes wrong. The same code runs on Postgres: the trial on both
// databases is in sheet-schedules.processes.test.ts (run with the reliability suite).
const every2s = { ...schedule, cron: "*/2 * * * * *" };

describe("sheet schedules that fail (serve, SQLite)", () => {
  it("a refresh whose run fails keeps the tab's rows, says why in the note and in GET /schedules, and notifies", async () => {
    const { emulator, sheets, hook, w, servers } = await setUp("sqlite", 1);
    const url = servers[0]!.url;
    const made = await call(url, "POST", "/schedules", every2s);
    const id: string = made.json.schedule.id;
    const succeeded = await until(
      async () => (await ticksOf(w, id)).find((t) => t.run_status === "succeeded"),
      60_000,
      "a first refresh",
    );
    // From now on every call the API answers is a 5xx: the next refresh's run fails.
    emulator.setFaults({ errorRate: 1 });
    const failed = await until(
      async () => (await ticksOf(w, id)).find((t) => t.run_status === "failed" && t.finished_at !== null),
      60_000,
      "a failed refresh",
    );
    // Every refresh from now on fails the same way: the list shows the last one's outcome and why.
    const listed = await call(url, "GET", `/schedules?spreadsheet=${BOOK}`);
    expect(listed.json.schedules[0].last).toMatchObject({ outcome: "failed" });
    expect(listed.json.schedules[0].last.note).toMatch(/\S/);
    await call(url, "DELETE", `/schedules/${id}`);
    const ok = (await ticksOf(w, id)).filter(
      (t) =>
        t.run_status === "succeeded" && Date.parse(String(t.tick_at)) < Date.parse(String(failed.tick_at)),
    );
    const kept = ok.at(-1) ?? succeeded;
    expect(sheets.values(BOOK, "Hubs").length - 1).toBe(await rowsOfRun(w, kept.run_id!));
    const note = sheets.note(BOOK, "Hubs") ?? "";
    expect(note).toMatch(/Last refresh .*: FAILED/);
    // The note names the latest refresh's run (ticks come every 2 s: maybe one after `failed`), which failed.
    const noted = /\(run (r[\w-]+)\)/.exec(note)?.[1];
    const notedTick = (await ticksOf(w, id)).find((t) => t.run_id === noted);
    expect(notedTick?.run_status, note).toBe("failed");
    expect(note).toContain("The rows below are from an earlier refresh.");

    const event = await until(
      async () =>
        hook.received.find((r) => r.kind === "run.failed" && r.body.event["runId"] === failed.run_id),
      30_000,
      "the failed run's notification",
    );
    expect(event.body.event["trigger"]).toBe("schedule");
  }, 180_000);

  it("a spreadsheet not shared with the server: the refresh fails, says how to share it, and notifies", async () => {
    const { sheets, hook, w, servers } = await setUp("sqlite", 1);
    sheets.deny(BOOK);
    const url = servers[0]!.url;
    const id: string = (await call(url, "POST", "/schedules", every2s)).json.schedule.id;
    const tick = await until(
      async () => (await ticksOf(w, id)).find((t) => t.finished_at !== null),
      60_000,
      "a refresh",
    );
    await call(url, "DELETE", `/schedules/${id}`);
    expect(tick.run_status).toBe("refresh-failed");
    const event = await until(
      async () => hook.received.find((r) => r.kind === "schedule.refresh-failed"),
      30_000,
      "the refresh's notification",
    );
    expect(event.body.event).toMatchObject({ schedule: id, tab: "Hubs", pipeline: "hub-search" });
    expect(event.body.text).toMatch(/share the spreadsheet with the service account's email/);
    expect(event.body.text).toContain("The tab keeps its earlier rows.");
  }, 120_000);

  it("a refresh capped below its cost stops at the cap, writes no rows to the tab, and the note says so", async () => {
    const { sheets, w, servers } = await setUp("sqlite", 1);
    const url = servers[0]!.url;
    // Three calls of a credit each under a cap of one: the run stops at its ceiling.
    const capped = {
      ...every2s,
      params: { keyword: ["desk lamp", "garden hose", "office chair"] },
      maxCredits: 1,
    };
    const id: string = (await call(url, "POST", "/schedules", capped)).json.schedule.id;
    const tick = await until(
      async () => (await ticksOf(w, id)).find((t) => t.finished_at !== null),
      60_000,
      "a refresh",
    );
    await call(url, "DELETE", `/schedules/${id}`);
    expect(tick.run_status).toBe("ceiling");
    const run = await w.db
      .selectFrom("skillsync_runs")
      .select("credits_spent")
      .where("id", "=", tick.run_id)
      .executeTakeFirstOrThrow();
    expect(Number(run.credits_spent)).toBeLessThanOrEqual(1);
    // The tab is made for the note only: none of the run's rows went there.
    expect(sheets.values(BOOK, "Hubs")).toEqual([]);
    expect(sheets.note(BOOK, "Hubs")).toMatch(
      /Last refresh .*: CEILING · ≈1 credit · .*The rows below are from an earlier refresh\./,
    );
  });
});
