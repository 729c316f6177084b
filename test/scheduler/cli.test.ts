import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../store/migrate.js";
import { ensureStates } from "../../store/schedule-state.js";
import { addSheetSchedule, deleteSheetSchedule } from "../../store/sheet-schedules.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { openTracked, runsOf, tempDir, until, writeScheduledPipeline } from "./fixtures.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("skillsync schedule", () => {
  it("--list prints each schedule's next run times and pause state; resume un-pauses", async () => {
    const dir = tempDir();
    writeScheduledPipeline(dir, {
      name: "nightly",
      cron: "0 6 * * *",
      schedule: "  timezone: Europe/Berlin",
    });
    writeScheduledPipeline(dir, { name: "often", cron: "*/10 * * * * *" });
    const db = freshWarehouseUrl("sqlite");

    const listed = await cli(["schedule", dir, "--db", db, "--list"]);
    expect(listed.code).toBe(0);
    const lines = listed.out.trim().split("\n");
    expect(lines[0]).toBe("nightly  0 6 * * *  (Europe/Berlin)  active, 0/3 failures in a row");
    expect(lines[1]).toMatch(/^ {2}next: (\d{4}-\d{2}-\d{2} 06:00:00(, |$)){3}/);
    expect(lines[2]).toBe("often  */10 * * * * *  (UTC)  active, 0/3 failures in a row");
    expect(lines[3]).toMatch(/^ {2}next: (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:[0-5]0(, |$)){3}/);

    const w = await openTracked(db);
    await migrateToLatest(w);
    await ensureStates(w, ["nightly"]);
    await w.db
      .updateTable("skillsync_schedule_state")
      .set({ paused: 1, consecutive_failures: 3, paused_reason: "3 failed runs in a row (last: r1)" })
      .execute();
    const json = await cli(["schedule", dir, "--db", db, "--list", "--json", "--next", "2"]);
    const rows = JSON.parse(json.out) as { pipeline: string; paused: boolean; next: string[] }[];
    expect(rows.map((r) => [r.pipeline, r.paused, r.next.length])).toEqual([
      ["nightly", true, 2],
      ["often", false, 2],
    ]);
    const paused = await cli(["schedule", dir, "--db", db, "--list"]);
    expect(paused.out).toContain(
      "nightly  0 6 * * *  (Europe/Berlin)  PAUSED (3 failed runs in a row (last: r1)); resume: skillsync schedule resume nightly",
    );

    const resumed = await cli(["schedule", "resume", "nightly", "--db", db]);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain(
      "resumed nightly (was paused: 3 failed runs in a row (last: r1)); failure count reset",
    );
    expect((await cli(["schedule", dir, "--db", db, "--list"])).out).toContain(
      "nightly  0 6 * * *  (Europe/Berlin)  active, 0/3",
    );
    const unknown = await cli(["schedule", "resume", "nope", "--db", db]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no schedule named "nope" in this warehouse (known: nightly)');
  });

  it("--list shows the schedules made from a spreadsheet too, with the tab and the key to resume them", async () => {
    const dir = tempDir();
    writeScheduledPipeline(dir, { name: "nightly", cron: "0 6 * * *" });
    const db = freshWarehouseUrl("sqlite");
    const w = await openTracked(db);
    await migrateToLatest(w);
    const s = await addSheetSchedule(w, {
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub"] },
      cron: "30 7 * * 1",
      timezone: "Europe/Berlin",
      maxCredits: 5,
      spreadsheet: "book-1",
      tab: "Hubs",
      mode: "replace",
    });
    const listed = await cli(["schedule", dir, "--db", db, "--list"]);
    expect(listed.code, listed.err).toBe(0);
    const lines = listed.out.trim().split("\n");
    expect(lines[2]).toBe(
      `sheet:${s.id} (marketplace-search → tab "Hubs")  30 7 * * 1  (Europe/Berlin)  active, 0/3 failures in a row`,
    );
    expect(lines[3]).toMatch(/^ {2}next: (\d{4}-\d{2}-\d{2} 07:30:00(, |$)){3}/);
    const json = JSON.parse((await cli(["schedule", dir, "--db", db, "--list", "--json"])).out);
    expect(json[1]).toMatchObject({
      schedule: `sheet:${s.id}`,
      pipeline: "marketplace-search",
      spreadsheet: "book-1",
      tab: "Hubs",
    });
    // Deleted from the sheet: no longer listed.
    await deleteSheetSchedule(w, s.id);
    expect((await cli(["schedule", dir, "--db", db, "--list"])).out).not.toContain("sheet:");
  });

  it("refuses a file without a schedule block and a bad cron, before anything starts", async () => {
    const bad = writeScheduledPipeline(tempDir(), { cron: "* * * *" });
    const r = await cli(["schedule", bad, "--db", freshWarehouseUrl("sqlite"), "--list"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/schedule\.cron: is not a cron expression .*\(line 20\)/);
  });

  it("runs as a process: ticks load the warehouse, SIGTERM stops it gracefully with exit code 0", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 300 });
    const db = freshWarehouseUrl("sqlite");
    const file = writeScheduledPipeline(tempDir());
    const child = spawn(
      process.execPath,
      [...nodeEntry("cli/run.ts"), "schedule", file, "--db", db, "--grace", "5", "--base-url", emulator.url],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SKILL_API_KEY: DEMO_KEY } },
    );
    children.push(child);
    let err = "";
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await until(async () => /run r\S+ succeeded/.test(err), 15_000, "a scheduled run in the log");
    // Stop while (most likely) a run is in flight: it must still be recorded.
    await until(async () => /starting\n$/.test(err), 3000, "a run starting").catch(() => {});
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(err).toMatch(/SIGTERM: no new ticks/);
    expect(err).toMatch(/stopped; /);
    expect(err).not.toContain(DEMO_KEY);

    const w = await openTracked(db);
    const runs = await runsOf(w);
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.trigger === "schedule" && r.status !== "running")).toBe(true);
    const listed = await cli(["runs", "--db", db]);
    expect(listed.out).toMatch(/sched-search\s+schedule\s+succeeded/);
  });
});
