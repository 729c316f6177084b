import { describe, expect, it } from "vitest";
import { claimTick, updateTick } from "../../store/schedule-state.js";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { sheetsNeverCalled, startTestServer } from "./helpers.js";

const SHEET = "1AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789-ab";
const daily = {
  pipeline: "marketplace-search",
  params: { keyword: ["usb hub"] },
  maxCredits: 5,
  cron: "30 7 * * *",
  timezone: "Europe/Berlin",
  spreadsheet: SHEET,
  tab: "Hubs",
};

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`/schedules on ${kind}`, () => {
    it("stores a schedule, lists it with its next tick, and deletes it", async () => {
      const t = await startTestServer(kind, { sheets: await sheetsNeverCalled() });
      const made = await t.call("POST", "/schedules", daily);
      expect(made.status, made.text).toBe(201);
      const s = made.json.schedule;
      expect(s).toMatchObject({
        pipeline: "marketplace-search",
        params: { keyword: ["usb hub"] },
        cron: "30 7 * * *",
        timezone: "Europe/Berlin",
        maxCredits: 5,
        spreadsheet: SHEET,
        tab: "Hubs",
        mode: "replace",
        paused: false,
        last: null,
      });
      expect(s.id).toMatch(/^s[0-9a-f]{12}$/);
      // 07:30 in Berlin is 05:30 or 06:30 UTC, whatever today is.
      expect(s.nextRunAt).toMatch(/T0[56]:30:00\.000Z$/);
      expect(Date.parse(s.nextRunAt)).toBeGreaterThan(Date.now());

      const history = await t.call("POST", "/schedules", {
        ...daily,
        pipeline: "patent-legal-status",
        params: { patent: ["US11234567B2"] },
        spreadsheet: "another-sheet",
      });
      expect(history.status, history.text).toBe(201);
      // A history table's runs load new versions only: they go below the earlier ones.
      expect(history.json.schedule.mode).toBe("append");

      // Two ticks have ended (as a scheduler records them): the list gives the later one.
      const owner = { host: "test", pid: 1 };
      for (const [at, runStatus] of [
        ["2026-11-20T06:30:00Z", "succeeded"],
        ["2026-11-21T06:30:00Z", "ceiling"],
        ["2026-11-22T06:30:00Z", "unfinished"],
      ] as const) {
        const tickAt = new Date(at);
        await claimTick(t.warehouse, { pipeline: `sheet:${s.id}`, tickAt, status: "fired", owner });
        if (runStatus !== "unfinished")
          await updateTick(t.warehouse, `sheet:${s.id}`, tickAt, {
            runStatus,
            note: runStatus,
            finished: true,
          });
      }
      const mine = await t.call("GET", `/schedules?spreadsheet=${SHEET}`);
      expect(mine.json.schedules.map((x: { id: string }) => x.id)).toEqual([s.id]);
      expect(mine.json.schedules[0].last).toMatchObject({
        tickAt: "2026-11-21T06:30:00.000Z",
        outcome: "ceiling",
        note: "ceiling",
      });
      expect((await t.call("GET", "/schedules")).json.schedules).toHaveLength(2);

      expect((await t.call("DELETE", `/schedules/${s.id}`)).json).toEqual({ deleted: s.id });
      expect((await t.call("GET", `/schedules?spreadsheet=${SHEET}&nonce=2`)).json.schedules).toEqual([]);
      // Each signature is single-use: the same request again in the same second needs a nonce.
      const again = await t.call("DELETE", `/schedules/${s.id}?nonce=2`);
      expect(again.status).toBe(404);
      expect(again.json.error.code).toBe("UNKNOWN_SCHEDULE");
    });

    it("refuses a schedule that could never run, saying which member is wrong, and stores nothing", async () => {
      const t = await startTestServer(kind, { sheets: await sheetsNeverCalled() });
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ cron: "every morning" }, "cron", /is not a cron expression/],
        [{ cron: "61 7 * * *" }, "cron", /is not a cron expression/],
        [{ timezone: "Mars/Olympus" }, "timezone", /IANA time zone/],
        [{ pipeline: "no-such-pipeline" }, "pipeline", /no pipeline "no-such-pipeline"/],
        [{ maxCredits: 51 }, "maxCredits", /above the server's ceiling of 50/],
        [{ params: {} }, "keyword", /required|missing/i],
        [{ spreadsheet: "https://docs.google.com/x" }, "spreadsheet", /is not a spreadsheet id/],
        [{ tab: " " }, "tab", /at least 1|too small|>=1/i],
        [{ extra: 1 }, "", /unrecognized|extra/i],
      ];
      for (const [change, member, message] of cases) {
        const r = await t.call("POST", "/schedules", { ...daily, ...change });
        expect(r.status, JSON.stringify(change)).toBe(400);
        expect(r.json.error.code).toBe("VALIDATION");
        const issue = r.json.error.issues.find((i: { path: string[] }) => i.path.join(".").includes(member));
        expect(issue, `${JSON.stringify(change)}: ${r.text}`).toBeDefined();
        expect(issue.message).toMatch(message);
      }
      expect((await t.call("POST", "/schedules", "{not json")).json.error.code).toBe("BAD_JSON");
      expect((await t.call("GET", "/schedules")).json.schedules).toEqual([]);
      expect((await t.call("PUT", "/schedules/x")).status).toBe(405);
    });

    it("a server without Google credentials refuses a sheet schedule (409 naming GOOGLE_APPLICATION_CREDENTIALS), stores nothing", async () => {
      // Issue 47: such a schedule was stored, then paid for a run at each tick that could never be written.
      const t = await startTestServer(kind);
      const r = await t.call("POST", "/schedules", daily);
      expect(r.status, r.text).toBe(409);
      expect(r.json.error.code).toBe("SHEETS_NOT_CONFIGURED");
      expect(r.json.error.message).toContain("GOOGLE_APPLICATION_CREDENTIALS");
      expect((await t.call("GET", "/schedules")).json.schedules).toEqual([]);
      // A request that is wrong anyway still says what is wrong with it.
      expect((await t.call("POST", "/schedules", { ...daily, cron: "every morning" })).status).toBe(400);
      expect(t.emulator.ledger().totalCredits).toBe(0);
    });
  });
}
