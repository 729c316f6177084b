import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type CsvBatch, headerColumns, readCsv } from "../../../engine/normalize/csv.js";
import { inferType, numericCell } from "../../../engine/normalize/infer-cells.js";
import { backoff, readStatus } from "../../../engine/reports/poll-timing.js";

async function all(content: string | Readable, batch = 1000): Promise<CsvBatch[]> {
  const out: CsvBatch[] = [];
  for await (const b of readCsv(content, batch)) out.push(b);
  return out;
}

const TRICKY = [
  '\uFEFF"Date","Campaign Name","Impression Share %","Notes"\r\n',
  "\r\n",
  '2025-03-01,"Summer, Sale","12.5%","He said ""hi"""\r\n',
  '2025-03-02,"Multi\nline","--","Größe 🎄 收纳"\n',
  "\n",
  ",,,\n",
  "2025-03-03,plain,7%,x\r\n",
  "2025-03-04,too few\r\n",
].join("");

describe("CSV parts", () => {
  it("parses quoted commas, doubled quotes, line breaks, a BOM, empty lines and non-ASCII, header to snake_case", async () => {
    const [b, ...more] = await all(TRICKY);
    expect(more).toEqual([]);
    expect(b!.header).toEqual(["Date", "Campaign Name", "Impression Share %", "Notes"]);
    expect(b!.columns).toEqual(["date", "campaign_name", "impression_share_pct", "notes"]);
    expect(b!.rows).toEqual([
      {
        date: "2025-03-01",
        campaign_name: "Summer, Sale",
        impression_share_pct: "12.5%",
        notes: 'He said "hi"',
      },
      {
        date: "2025-03-02",
        campaign_name: "Multi\nline",
        impression_share_pct: "--",
        notes: "Größe 🎄 收纳",
      },
      { date: "2025-03-03", campaign_name: "plain", impression_share_pct: "7%", notes: "x" },
    ]);
    expect(b!.rowNumbers).toEqual([1, 2, 3]);
    expect(b!.malformed).toEqual([
      { row: 4, reason: "row 4 has 2 fields, the header 4", cells: ["2025-03-04", "too few"] },
    ]);
  });

  it("streams in batches and keeps a character split across chunks whole", async () => {
    const row = (i: number) => `${i},"${"é🎄".repeat(30)}, ${i}"\n`;
    const text = `"N","Text"\n${Array.from({ length: 5000 }, (_, i) => row(i + 1)).join("")}`;
    const batches = await all(text, 1000);
    expect(batches.map((b) => b.rows.length)).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(batches[3]!.firstRow).toBe(3001);
    expect(
      batches.flatMap((b) => b.rows).every((r, i) => r["text"] === `${"é🎄".repeat(30)}, ${i + 1}`),
    ).toBe(true);
    // A byte stream cut in the middle of multi-byte characters reads the same.
    const bytes = Buffer.from(text, "utf8");
    const cut = Readable.from(
      Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7)),
    );
    const fromBytes = (await all(cut, 5000))[0]!;
    expect(fromBytes.rows).toEqual(batches.flatMap((b) => b.rows));
  });

  it("names header columns safely: accents, %, digits, empty, duplicates and toolkit names", () => {
    expect(
      headerColumns(["Größe", "Share %", "7 Day ROAS", "", "Clicks", "Clicks", "Report ID", "Run Id"]),
    ).toEqual([
      "grosse",
      "share_pct",
      "c_7_day_roas",
      "column_4",
      "clicks",
      "clicks_2",
      "csv_report_id",
      "csv_run_id",
    ]);
    // The table's extra JSON column is taken too.
    expect(headerColumns(["Extra", "Notes"], ["report_id", "extra"])).toEqual(["csv_extra", "notes"]);
  });

  it("types unknown columns from their cells", () => {
    expect(inferType(["1", "2", null, "-3"])).toBe("integer");
    expect(inferType(["12.5%", "7%", "--"])).toBe("number");
    expect(inferType(["1,234.50", "$3.20"])).toBe("number");
    expect(inferType(["2025-03-01", "2025-03-02"])).toBe("date");
    expect(inferType(["2025-03-01T10:00:00Z"])).toBe("timestamp");
    expect(inferType(["12", "twelve"])).toBe("text");
    expect(inferType([null, ""])).toBe("text");
    expect(numericCell("12.5%")).toBe("12.5");
    expect(numericCell("€1,234")).toBe("1234");
    expect(numericCell("N/A")).toBe(null);
  });
});

describe("report status", () => {
  it("reads parts as ready whatever the status says, failure words as failed, anything else as pending", () => {
    expect(readStatus({ reportId: "r", status: "PENDING", completedReportParts: null })).toEqual({
      state: "pending",
      status: "PENDING",
    });
    expect(readStatus({ status: "IN_PROGRESS" }).state).toBe("pending");
    expect(readStatus({ status: null }).state).toBe("pending");
    expect(readStatus({ status: "QUEUED_FOR_ERRORLESS_RUN" }).state).toBe("pending");
    expect(readStatus({ status: "WHATEVER", reportParts: [{ documentToken: "d1" }] })).toEqual({
      state: "ready",
      parts: [{ documentToken: "d1" }],
    });
    expect(readStatus({ status: "COMPLETED", completedReportParts: [] }).state).toBe("pending");
    for (const s of ["FAILED", "cancelled", "Canceled", "EXPIRED", "ERROR", "REPORT_FAILED"]) {
      expect(readStatus({ status: s }), s).toEqual({ state: "failed", reason: s });
    }
    expect(readStatus({ status: "FAILED", failureReason: "no data" })).toEqual({
      state: "failed",
      reason: "FAILED: no data",
    });
    expect(readStatus({ completedReportParts: [{ partNumber: 1 }] })).toEqual({
      state: "failed",
      reason: "completed part 1 has no documentToken",
    });
  });

  it("waits longer between polls up to the cap", () => {
    const waits = backoff({ initialMs: 100, maxMs: 700, factor: 2, timeoutMs: 0 });
    expect(Array.from({ length: 6 }, () => waits.next().value)).toEqual([100, 200, 400, 700, 700, 700]);
  });
});
