import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import type { SkillCaller } from "../../../engine/extract/skill-caller.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { CREATE_SIS, count, DOWNLOAD, fast, jobs, ledgerOf, RANGE, rows, run, STATUS } from "./helpers.js";

const SIS = "ads-sp-search-impression-share";
const TABLE = "ads_sp_search_impression_share";

/** The built-in impression-share report for several connections, one report at a time. */
const oneAtATime = () => {
  const p = fast(SIS);
  return {
    ...p,
    concurrency: 1,
    params: { ...p.params, connection: { ...p.params["connection"]!, repeatable: true } },
    input: { name: "connection", from: { param: "connection" } },
  } as typeof p;
};

describe.each(WAREHOUSE_KINDS)("report pipelines on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    afterEach(async () => {
      await w?.close();
      w = undefined;
    });
    const open = async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return w;
    };

    it("polls a report that stays pending, loads every part once, and asks nothing again while fresh", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 4,
        reportParts: 3,
        reportRowsPerPart: 60,
      });
      const w = await open();
      const s = await run(w, client, fast(SIS), { connection: ["5"], ...RANGE });
      expect(s.status).toBe("succeeded");
      expect(await count(w, TABLE)).toBe(3 * 60);
      expect(ledgerOf(emulator)).toEqual({
        creates: 1,
        polls: 5,
        downloads: 3,
        distinctDownloads: 3,
        credits: 10 + 5 + 3,
      });
      expect(s.counters.creditsSpent).toBe(18);
      const [job] = await jobs(w);
      expect(job).toMatchObject({ status: "done", parts_loaded: [0, 1, 2], rows_loaded: 180, error: null });
      const calls = await rows<{ skill: string; outcome: string; credits: number }>(
        w,
        "select skill, outcome, credits from skillsync_calls order by id",
      );
      expect(calls.map((c) => c.skill)).toEqual([
        CREATE_SIS,
        ...Array(5).fill(STATUS),
        ...Array(3).fill(DOWNLOAD),
      ]);
      expect(calls.every((c) => c.outcome === "succeeded")).toBe(true);
      expect(calls.reduce((n, c) => n + Number(c.credits), 0)).toBe(18);

      const again = await run(w, client, fast(SIS), { connection: ["5"], ...RANGE });
      expect(again.status).toBe("succeeded");
      expect(ledgerOf(emulator).credits).toBe(18);
      expect(await count(w, TABLE)).toBe(180);
    });

    it("loads the CSV cells exactly as the service wrote them: commas, quotes, line breaks, non-ASCII", async () => {
      const options = { reportPendingPolls: 1, reportParts: 2, reportRowsPerPart: 120 };
      const { client } = await emulatorWithClient(options);
      const w = await open();
      await run(w, client, fast(SIS), { connection: ["5"], ...RANGE });

      // The same emulator settings answer the same report: read its CSV directly as the oracle.
      const { client: raw } = await emulatorWithClient(options);
      const body = { connectionId: 5, startDate: RANGE.start[0]!, endDate: RANGE.end[0]! };
      const { reportId } = (await raw.call(CREATE_SIS, body)).data!;
      let parts: { documentToken: string }[] | null | undefined;
      while (!parts)
        parts = (await raw.call(STATUS, { connectionId: 5, reportId })).data?.completedReportParts;
      const expected: unknown[][] = [];
      for (const part of parts) {
        const csv = (await raw.call(DOWNLOAD, { connectionId: 5, documentToken: part.documentToken })).data!
          .content!;
        const [, ...records] = parse(csv) as string[][];
        for (const r of records) {
          expected.push([
            r[0],
            r[1],
            r[2],
            r[3] === "" ? null : Number(r[3]),
            Number(r[4]),
            Number(r[5]),
            Number(r[6]),
          ]);
        }
      }
      const got = await rows<Record<string, unknown>>(
        w,
        `select date, campaign_name, search_term, impression_share_pct, impressions, clicks, spend
         from ${TABLE} order by report_part, report_row`,
      );
      expect(got.map((r) => Object.values(r))).toEqual(expected);
      const names = new Set(got.map((r) => r["campaign_name"]));
      for (const tricky of [
        "Multi-line\nCampaign Name",
        'Brand "Defense" – Exact',
        "新品推广 – 收纳",
        "Holiday 🎄 Gifts",
      ]) {
        expect(names.has(tricky), tricky).toBe(true);
      }
      expect(got.some((r) => r["search_term"] === "shoe rack\nfor closet")).toBe(true);
      expect(got.some((r) => r["impression_share_pct"] === null)).toBe(true);
    });

    it("shapes the audience table by detail level and time unit", async () => {
      const { client } = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: 1,
        reportRowsPerPart: 30,
      });
      const w = await open();
      const params = { connection: ["2"], ...RANGE, detailLevel: ["CAMPAIGN"], timeUnit: ["SUMMARY"] };
      const s = await run(w, client, fast("ads-sp-audience"), params);
      expect(s.status).toBe("succeeded");
      const got = await rows<Record<string, unknown>>(
        w,
        "select connection_id, detail_level, date, start_date, end_date, campaign_name, ad_group_name, orders from ads_sp_audience",
      );
      expect(got).toHaveLength(30);
      for (const r of got) {
        expect(r).toMatchObject({
          connection_id: 2,
          detail_level: "CAMPAIGN",
          date: null,
          ad_group_name: null,
        });
        expect([r["start_date"], r["end_date"]]).toEqual(["2025-03-01", "2025-03-07"]);
        expect(typeof r["campaign_name"]).toBe("string");
        expect(Number.isInteger(r["orders"])).toBe(true);
      }
    });

    it("ends a job whose status reads as failed, and does not create it again without being told", async () => {
      const { emulator, client } = await emulatorWithClient({ reportPendingPolls: 1, failedReports: [7] });
      const w = await open();
      const s = await run(w, client, fast(SIS), { connection: ["7"], ...RANGE });
      expect(s.status).toBe("failed");
      expect(s.failures[0]).toMatchObject({ code: "REPORT_FAILED" });
      expect(s.failures[0]!.message).toContain("FAILED: the provider could not generate the report");
      const [job] = await jobs(w);
      expect(job).toMatchObject({
        status: "failed",
        error: "FAILED: the provider could not generate the report",
      });
      expect(ledgerOf(emulator)).toMatchObject({ creates: 1, polls: 2, downloads: 0 });

      const again = await run(w, client, fast(SIS), { connection: ["7"], ...RANGE });
      expect(again.status).toBe("failed");
      expect(again.failures[0]!.message).toContain(`skillsync reports retry ${job!.id} --create`);
      expect(again.failures[0]!.message).toContain("costs 10 credits");
      expect(ledgerOf(emulator)).toMatchObject({ creates: 1, polls: 2 });
    });

    it("times out a report that stays pending, and a later run polls the same report to the end", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 25,
        reportParts: 2,
        reportRowsPerPart: 10,
      });
      const w = await open();
      const params = { connection: ["5"], ...RANGE };
      const s = await run(w, client, fast(SIS, { initial: "5ms", max: "5ms", timeout: "60ms" }), params);
      expect(s.status).toBe("failed");
      expect(s.failures[0]).toMatchObject({ code: "REPORT_TIMEOUT" });
      const [job] = await rows<{ status: string; created_at: string; updated_at: string }>(
        w,
        "select status, created_at, updated_at from skillsync_report_jobs",
      );
      expect(job!.status).toBe("timeout");
      // From the create to giving up: the 60 ms timeout and the last call, not the 25 polls' worth.
      expect(Date.parse(job!.updated_at) - Date.parse(job!.created_at)).toBeLessThan(1000);
      // A busy machine may spend the whole 60 ms on the first poll, so one poll is enough here.
      const polled = ledgerOf(emulator).polls;
      expect(polled).toBeGreaterThanOrEqual(1);
      expect(polled).toBeLessThan(25);

      const resumed = await run(w, client, fast(SIS, { initial: "1ms", max: "2ms" }), params);
      expect(resumed.status).toBe("succeeded");
      expect(ledgerOf(emulator)).toMatchObject({ creates: 1, polls: 26, downloads: 2 });
      expect(await count(w, TABLE)).toBe(20);
    });

    it("stops polling at the credit ceiling, and a later run goes on with the same report", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 3,
        reportParts: 1,
        reportRowsPerPart: 7,
      });
      const w = await open();
      const params = { connection: ["5"], ...RANGE };
      const capped = await runPipelines({
        warehouse: w,
        client,
        pipelines: [fast(SIS)],
        params,
        maxCredits: 12,
      });
      expect(capped.status).toBe("ceiling");
      expect(capped.counters.creditsSpent).toBe(12);
      expect((await jobs(w))[0]).toMatchObject({ status: "pending" });
      expect(ledgerOf(emulator)).toMatchObject({ creates: 1, polls: 2, credits: 12 });

      const rest = await run(w, client, fast(SIS), params);
      expect(rest.status).toBe("succeeded");
      expect(ledgerOf(emulator)).toMatchObject({ creates: 1, polls: 4, downloads: 1 });
      expect(await count(w, TABLE)).toBe(7);
    });

    it("stops at a 403 for a connection without advertising access, with nothing charged", async () => {
      const { emulator, client } = await emulatorWithClient({ deniedConnections: [9] });
      const w = await open();
      const s = await run(w, client, fast(SIS), { connection: ["9"], ...RANGE });
      expect(s.authFailure).toBe(true);
      expect(s.status).toBe("failed");
      expect(s.failures[0]).toMatchObject({ code: "ACCESS", ambiguous: false });
      expect(emulator.ledger().totalCredits).toBe(0);
      expect(s.counters.creditsSpent).toBe(0);
      expect((await jobs(w))[0]).toMatchObject({ status: "refused", report_id: null });
      expect(emulator.ledger().calls.map((c) => c.slug)).toEqual([CREATE_SIS]);
    });

    it("creates no further report once the pipeline has stopped at a 403", async () => {
      const { emulator, client } = await emulatorWithClient({ deniedConnections: [9] });
      const w = await open();
      const s = await run(w, client, oneAtATime(), { connection: ["9", "1", "2"], ...RANGE });
      expect(s.status).toBe("failed");
      expect(s.failures.map((f) => f.code)).toEqual(["ACCESS"]);
      expect(emulator.ledger().calls.map((c) => c.slug)).toEqual([CREATE_SIS]);
      expect(emulator.ledger().totalCredits).toBe(0);
    });

    it("an unexpected error in one report job stops the others from being created", async () => {
      const { emulator, client } = await emulatorWithClient({ reportPendingPolls: 1 });
      const w = await open();
      let creates = 0;
      const faulty: SkillCaller = {
        prepare: client.prepare.bind(client),
        send: (req, opts) => {
          if (req.slug === CREATE_SIS && ++creates === 2)
            return Promise.reject(new TypeError("socket exploded"));
          return client.send(req, opts);
        },
      };
      await expect(
        run(w, faulty, oneAtATime(), { connection: ["1", "2", "3", "4"], ...RANGE }),
      ).rejects.toThrow("socket exploded");
      expect(creates).toBe(2);
      expect(emulator.ledger().calls.filter((c) => c.slug === CREATE_SIS).length).toBe(1);
    });

    it("loads a part that was downloaded but failed to load from the store, never downloading it again", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: 3,
        reportRowsPerPart: 15,
      });
      const url = freshWarehouseUrl(kind);
      let w = await openWarehouse(url);
      // A column the loader does not fill makes every insert fail: the load, not the download, breaks.
      await rows(w, `create table ${TABLE} (blocker text not null)`);
      const params = { connection: ["5"], ...RANGE };
      const s = await run(w, client, fast(SIS), params);
      expect(s.status).toBe("failed");
      expect(s.failures[0]).toMatchObject({ code: "REPORT_LOAD" });
      expect((await jobs(w))[0]).toMatchObject({
        status: "downloading",
        parts_downloaded: [0],
        parts_loaded: [],
      });
      expect(ledgerOf(emulator).downloads).toBe(1);

      // The user repairs the table from elsewhere (another connection), then runs again.
      await rows(w, `drop table ${TABLE}`);
      await w.close();
      w = await openWarehouse(url);
      const fixed = await run(w, client, fast(SIS), params);
      expect(fixed.status).toBe("succeeded");
      expect(fixed.counters.callsCached).toBeGreaterThanOrEqual(1);
      expect(ledgerOf(emulator)).toMatchObject({ creates: 1, downloads: 3, distinctDownloads: 3 });
      expect(await count(w, TABLE)).toBe(45);
      await w.close();
    });
  });
});
