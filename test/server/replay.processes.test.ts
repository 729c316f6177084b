import { describe, expect, it } from "vitest";
import { signedHeaders } from "../../server/index.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { serveProcess } from "../helpers/serve-process.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { SECRET } from "./helpers.js";

// Issue 44: a captured signed request was accepted again after `serve` restarted and by a second
// server of the same warehouse, because the used signatures lived in one process's memory.
// Two `serve` processes at once and one restarted: a process trial, in the reliability suite.

/** `skillsync serve` as its own process on `db`, calling the API at `api`. */
const serve = (db: string, api: string) =>
  serveProcess(["--db", db], {
    SKILLSYNC_SERVER_SECRET: SECRET,
    SKILL_API_BASE_URL: api,
    SKILL_API_KEY: DEMO_KEY,
    // A server with Google credentials takes sheet schedules; this one's are stored, never fired.
    SKILLSYNC_SHEETS_ACCESS_TOKEN: "never-used-token",
    SKILLSYNC_SHEETS_API_URL: "http://127.0.0.1:9/",
  });

const schedule = JSON.stringify({
  pipeline: "marketplace-search",
  params: { keyword: ["usb hub"] },
  maxCredits: 5,
  // Never due while the test runs: the schedule is only stored.
  cron: "30 7 1 1 *",
  timezone: "UTC",
  spreadsheet: "1AbCdEfGhIjKlMnOpQrStUvWxYz_replay",
  tab: "Hubs",
});

// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
async function send(url: string, path: string, headers: Record<string, string>, body?: string): Promise<any> {
  const method = body === undefined ? "GET" : "POST";
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, ...((await res.json()) as object) };
}

const get = (url: string, path: string) =>
  send(url, path, signedHeaders(SECRET, { method: "GET", pathWithQuery: path, body: "" }));

describe.each(WAREHOUSE_KINDS)("a captured signed request (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "is accepted once, then refused as a replay by the same server, after its restart and by a second server",
    async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const first = await serve(db, emulator.url);
      const captured = signedHeaders(SECRET, { method: "POST", pathWithQuery: "/schedules", body: schedule });

      const made = await send(first.url, "/schedules", captured, schedule);
      expect(made.status, JSON.stringify(made)).toBe(201);
      const replayed = { status: 401, error: { code: "UNAUTHORIZED", reason: "SIGNATURE_REPLAYED" } };
      expect(await send(first.url, "/schedules", captured, schedule)).toMatchObject(replayed);

      const second = await serve(db, emulator.url);
      expect(await send(second.url, "/schedules", captured, schedule)).toMatchObject(replayed);
      // A GET too: accepted by one server, refused by the other.
      const list = signedHeaders(SECRET, { method: "GET", pathWithQuery: "/schedules", body: "" });
      expect((await send(second.url, "/schedules", list)).status).toBe(200);
      expect(await send(first.url, "/schedules", list)).toMatchObject(replayed);

      await first.stop();
      const restarted = await serve(db, emulator.url);
      expect(await send(restarted.url, "/schedules", captured, schedule)).toMatchObject(replayed);
      expect(await send(restarted.url, "/schedules", list)).toMatchObject(replayed);

      // One schedule made, whichever server was asked; nothing paid.
      expect((await get(restarted.url, "/schedules?nonce=1")).schedules).toHaveLength(1);
      expect((await get(second.url, "/schedules?nonce=2")).schedules).toHaveLength(1);
      expect(emulator.ledger().totalCalls).toBe(0);
    },
  );
});
