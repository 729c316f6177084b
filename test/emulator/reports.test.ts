import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator/index.js";
import { emulators, parseCsv, post } from "./helpers.js";

const emus = emulators();
afterEach(() => emus.stopAll());

const CREATE_SIS = "marketplace-ads-sp-search-impression-share-report";
const CREATE_AUDIENCE = "marketplace-ads-sp-audience-report";
const STATUS = "marketplace-ads-sp-insights-report-status";
const DOWNLOAD = "marketplace-ads-sp-insights-report-download";
const range = { startDate: "2025-03-01", endDate: "2025-03-10" };

async function completed(emu: Emulator, connectionId: number, reportId: string) {
  for (let i = 0; i < 10; i++) {
    const res = await post(emu, STATUS, { connectionId, reportId });
    if (res.json.data.status !== "PENDING") return res.json.data;
  }
  throw new Error("report never completed");
}

describe("asynchronous advertising reports", () => {
  it("stay PENDING for the configured polls, then complete with one documentToken per part", async () => {
    const emu = await emus.start({ reportPendingPolls: 3, reportParts: 3, reportRowsPerPart: 10 });
    const created = await post(emu, CREATE_SIS, { connectionId: 5, ...range });
    expect(created.status).toBe(200);
    expect(created.json.data).toMatchObject({ status: "PENDING", reportId: expect.stringMatching(/^rpt-/) });
    const { reportId } = created.json.data;
    for (let i = 0; i < 3; i++) {
      const poll = await post(emu, STATUS, { connectionId: 5, reportId });
      expect(poll.json.data).toMatchObject({ reportId, status: "PENDING", completedReportParts: null });
    }
    const done = await post(emu, STATUS, { connectionId: 5, reportId });
    expect(done.json.data.status).toBe("COMPLETED");
    const parts = done.json.data.completedReportParts;
    expect(parts).toHaveLength(3);
    expect(new Set(parts.map((p: { documentToken: string }) => p.documentToken)).size).toBe(3);
    const again = await post(emu, STATUS, { connectionId: 5, reportId });
    expect(again.json.data.completedReportParts).toEqual(parts);
    const ledger = emu.ledger();
    expect(ledger.operations[CREATE_SIS]?.credits).toBe(10);
    expect(ledger.operations[STATUS]).toEqual({ calls: 5, charged: 5, credits: 5 });
    expect(ledger.calls.every((c) => c.reportId === reportId)).toBe(true);
  });

  it("download UTF-8 CSV with a header row and fields holding commas, quotes, line breaks and non-ASCII", async () => {
    const emu = await emus.start({ reportPendingPolls: 0, reportRowsPerPart: 200 });
    const created = await post(emu, CREATE_SIS, { connectionId: 5, ...range });
    const status = await completed(emu, 5, created.json.data.reportId);
    const token = status.completedReportParts[0].documentToken;
    const res = await post(emu, DOWNLOAD, { connectionId: 5, documentToken: token });
    expect(res.status).toBe(200);
    expect(res.json.data.contentType).toBe("text/csv");
    const content: string = res.json.data.content;
    expect(content.split("\r\n")[0]).toBe(
      '"Date","Campaign Name","Search Term","Impression Share %","Impressions","Clicks","Spend"',
    );
    const rows = parseCsv(content);
    expect(rows).toHaveLength(201);
    for (const row of rows) expect(row).toHaveLength(7);
    const fields = rows.slice(1).flat();
    expect(fields.some((f) => f.includes(","))).toBe(true);
    expect(fields.some((f) => f.includes('"'))).toBe(true);
    expect(fields.some((f) => f.includes("\n"))).toBe(true);
    expect(fields.some((f) => /[^\x00-\x7f]/.test(f))).toBe(true);
    for (const row of rows.slice(1)) {
      expect(row[0]! >= range.startDate && row[0]! <= range.endDate).toBe(true);
      expect(Number(row[4])).toBeGreaterThanOrEqual(Number(row[5]));
    }
    const twice = await post(emu, DOWNLOAD, { connectionId: 5, documentToken: token });
    expect(twice.json.data.content).toBe(content);
  });

  it("shape audience CSV by detail level and time unit", async () => {
    const emu = await emus.start({ reportPendingPolls: 0, reportRowsPerPart: 5, reportParts: 1 });
    const created = await post(emu, CREATE_AUDIENCE, {
      connectionId: 2,
      ...range,
      detailLevel: "CAMPAIGN",
      timeUnit: "SUMMARY",
    });
    const status = await completed(emu, 2, created.json.data.reportId);
    const res = await post(emu, DOWNLOAD, {
      connectionId: 2,
      documentToken: status.completedReportParts[0].documentToken,
    });
    const rows = parseCsv(res.json.data.content);
    expect(rows[0]).toEqual([
      "Start Date",
      "End Date",
      "Campaign Name",
      "Audience",
      "Impressions",
      "Clicks",
      "Spend",
      "Sales",
      "Orders",
    ]);
    expect(rows.slice(1).every((r) => r[0] === range.startDate && r[1] === range.endDate)).toBe(true);
  });

  it("refuse unknown reports and tokens and reports of another connection, without charging", async () => {
    const emu = await emus.start({ reportPendingPolls: 0 });
    const created = await post(emu, CREATE_SIS, { connectionId: 5, ...range });
    const { reportId } = created.json.data;
    const status = await completed(emu, 5, reportId);
    const token = status.completedReportParts[0].documentToken;
    const before = emu.ledger().totalCredits;
    const unknown = await post(emu, STATUS, { connectionId: 5, reportId: "rpt-nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 404, data: null });
    expect((await post(emu, STATUS, { connectionId: 6, reportId })).status).toBe(404);
    expect((await post(emu, DOWNLOAD, { connectionId: 5, documentToken: "doc-nope" })).status).toBe(404);
    expect((await post(emu, DOWNLOAD, { connectionId: 6, documentToken: token })).status).toBe(404);
    const ledger = emu.ledger();
    expect(ledger.totalCredits).toBe(before);
    expect(ledger.calls.slice(-4).map((c) => c.status)).toEqual([
      "not-found",
      "not-found",
      "not-found",
      "not-found",
    ]);
  });

  it("end FAILED for failedReports connections and answer 403 for deniedConnections", async () => {
    const emu = await emus.start({ reportPendingPolls: 1, failedReports: [7], deniedConnections: [9] });
    const created = await post(emu, CREATE_SIS, { connectionId: 7, ...range });
    const status = await completed(emu, 7, created.json.data.reportId);
    expect(status).toMatchObject({ status: "FAILED", completedReportParts: null });
    const denied = await post(emu, CREATE_AUDIENCE, { connectionId: 9, ...range });
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ code: 403, data: null });
    expect(emu.ledger().calls.at(-1)).toMatchObject({ status: "forbidden", credits: 0 });
  });

  it("give a new reportId per create, the same ids in a fresh emulator, and forget reports on reset", async () => {
    const a = await emus.start();
    const b = await emus.start();
    const body = { connectionId: 1, ...range };
    const a1 = (await post(a, CREATE_SIS, body)).json.data.reportId;
    const a2 = (await post(a, CREATE_SIS, body)).json.data.reportId;
    const b1 = (await post(b, CREATE_SIS, body)).json.data.reportId;
    expect(a1).not.toBe(a2);
    expect(b1).toBe(a1);
    a.reset();
    expect((await post(a, STATUS, { connectionId: 1, reportId: a1 })).status).toBe(404);
  });

  it("stream a very large part without building it in one piece", async () => {
    const emu = await emus.start({ reportPendingPolls: 0, reportParts: 1, reportRowsPerPart: 100_000 });
    const created = await post(emu, CREATE_AUDIENCE, { connectionId: 3, ...range });
    const status = await completed(emu, 3, created.json.data.reportId);
    const res = await post(emu, DOWNLOAD, {
      connectionId: 3,
      documentToken: status.completedReportParts[0].documentToken,
    });
    expect(res.headers.get("transfer-encoding")).toBe("chunked");
    expect(res.json.code).toBe(0);
    const rows = parseCsv(res.json.data.content);
    expect(rows).toHaveLength(100_001);
  });
});
