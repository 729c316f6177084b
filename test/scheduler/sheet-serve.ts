import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { signedHeaders } from "../../server/index.js";
import { startSheetsFake } from "../fakes/sheets-fake.js";
import { afterTest } from "../helpers/after-test.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { startReceiver } from "../helpers/notify-receiver.js";
import { serveProcess } from "../helpers/serve-process.js";
import { until } from "../helpers/until.js";
import { freshWarehouseUrl, type WarehouseKind } from "../helpers/warehouses.js";
import { tempDir } from "./fixtures.js";

const SECRET = "sheet-schedules-server-secret-0123456789";
export const BOOK = "book-sheet-schedules";

/** marketplace-search under another name that never reuses a stored answer: every tick pays and loads. */
function pipelinesDir(): string {
  const dir = tempDir();
  const yaml = readFileSync("pipelines/marketplace-search.yaml", "utf8")
    .replace(/^name: marketplace-search$/m, "name: hub-search")
    .replace(/^freshness: .*$/m, "freshness: 0");
  writeFileSync(join(dir, "hub-search.yaml"), yaml);
  return dir;
}

/** `skillsync serve` as its own process, signed with this file's secret. */
const serve = (args: string[], env: Record<string, string>) =>
  serveProcess(args, { SKILLSYNC_SERVER_SECRET: SECRET, ...env });

export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
): Promise<{ status: number; json: any }> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const headers = {
    ...(text ? { "content-type": "application/json" } : {}),
    ...signedHeaders(SECRET, { method, pathWithQuery: path, body: text }),
  };
  const res = await fetch(`${url}${path}`, { method, headers, ...(text ? { body: text } : {}) });
  return { status: res.status, json: await res.json() };
}

interface Tick {
  tick_at: unknown;
  run_id: string | null;
  run_status: string | null;
  host: string;
  pid: number;
  finished_at: unknown;
}

export const ticksOf = (w: Warehouse, id: string) =>
  w.db
    .selectFrom("skillsync_schedule_ticks")
    .selectAll()
    .where("pipeline", "=", `sheet:${id}`)
    .orderBy("tick_at")
    .execute() as Promise<Tick[]>;

export const rowsOfRun = async (w: Warehouse, runId: string) =>
  Number(
    (
      await w.db
        .selectFrom("marketplace_search_results")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("run_id", "=", runId)
        .executeTakeFirstOrThrow()
    ).n,
  );

export async function setUp(kind: WarehouseKind, servers: number) {
  const { emulator } = await emulatorWithClient();
  const sheets = await startSheetsFake();
  afterTest(() => sheets.stop());
  sheets.createSpreadsheet(BOOK, [{ title: "Sheet1" }]);
  const hook = await startReceiver();
  const db = freshWarehouseUrl(kind);
  const env = {
    SKILL_API_BASE_URL: emulator.url,
    SKILL_API_KEY: DEMO_KEY,
    SKILLSYNC_SHEETS_API_URL: sheets.url,
    SKILLSYNC_SHEETS_ACCESS_TOKEN: sheets.token,
  };
  const dir = pipelinesDir();
  const running = [];
  for (let i = 0; i < servers; i++)
    running.push(
      await serve(["--db", db, "--pipelines", dir, "--max-credits", "20", "--notify", hook.url], env),
    );
  const w = await openWarehouse(db);
  afterTest(() => w.close());
  return { emulator, sheets, hook, w, servers: running };
}

export const schedule = {
  pipeline: "hub-search",
  params: { keyword: ["usb hub"] },
  maxCredits: 5,
  cron: "*/4 * * * * *",
  spreadsheet: BOOK,
  tab: "Hubs",
};

/**
 * The acceptance trial of sheet schedules: two `serve` processes on one warehouse fire a schedule
 * made through one of them until `ticks` refreshes succeeded; it is then deleted through the other.
 * Each tick ran once, each run within its cap; the tab holds the last run's rows and its note says
 * so; no tick after the DELETE ran.
 */
export async function twoServersTrial(kind: WarehouseKind, cron: string, ticks: number, deadlineMs: number) {
  const { sheets, w, servers } = await setUp(kind, 2);
  const made = await call(servers[0]!.url, "POST", "/schedules", { ...schedule, cron });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  const id: string = made.json.schedule.id;
  // Both servers fire it (the other one finds it within its 5 s sync), whichever claims a tick.
  for (const s of servers)
    await until(async () => s.output().includes(`sheet:${id}: hub-search`), 30_000, "the schedule taken up");
  const done = (t: Tick) => t.finished_at !== null && t.run_status === "succeeded";
  await until(async () => (await ticksOf(w, id)).filter(done).length >= ticks, deadlineMs, `${ticks} ticks`);

  const deleted = await call(servers[1]!.url, "DELETE", `/schedules/${id}`);
  expect(deleted.json).toEqual({ deleted: id });
  const deletedAt = Date.now();
  // Both schedulers have taken it off their crons, and the runs already going have ended.
  for (const s of servers)
    await until(async () => s.output().includes(`sheet:${id}: deleted`), 30_000, "the schedule removed");
  await until(async () => (await ticksOf(w, id)).every((t) => t.finished_at !== null), 60_000, "runs to end");

  const all = await ticksOf(w, id);
  expect(all.filter((t) => Date.parse(String(t.tick_at)) > deletedAt)).toEqual([]);
  const runs = await w.db
    .selectFrom("skillsync_runs")
    .select(["id", "credits_spent", "trigger", "status"])
    .where("trigger", "=", "schedule")
    .execute();
  // One run per tick, whichever server claimed it; each within its cap of 5 credits.
  expect(new Set(all.map((t) => t.run_id)).size).toBe(all.length);
  expect(runs.map((r) => r.id).sort()).toEqual(all.map((t) => t.run_id).sort());
  for (const r of runs) expect(Number(r.credits_spent)).toBeLessThanOrEqual(5);

  // The tab holds exactly the last run's rows, and its header note says how that run went.
  const last = all.filter(done).at(-1)!;
  const values = sheets.values(BOOK, "Hubs");
  expect(values[0]).toContain("keyword");
  expect(values.length - 1).toBe(await rowsOfRun(w, last.run_id!));
  expect(values.length - 1).toBeGreaterThan(0);
  const note = sheets.note(BOOK, "Hubs") ?? "";
  expect(note).toContain(`scheduled refresh of hub-search (${cron}, UTC; schedule ${id})`);
  expect(note).toMatch(
    new RegExp(`succeeded · ≈\\d+ credits? · ${values.length - 1} rows? \\(run ${last.run_id}\\)`),
  );
  expect(sheets.titles(BOOK)).toEqual(["Sheet1", "Hubs"]);
}
