import { Rng } from "../random.js";
import { LazyText } from "../respond.js";
import { dayOf, isoDay } from "./dates.js";
import { AD_GROUPS, AUDIENCES, CAMPAIGN_NAMES, SEARCH_TERMS } from "./vocabulary.js";

export type ReportKind = "search-impression-share" | "audience";

export interface CsvSpec {
  kind: ReportKind;
  startDate: string;
  endDate: string;
  timeUnit: "DAILY" | "SUMMARY";
  detailLevel: "ACCOUNT" | "CAMPAIGN" | "AD_GROUP";
  seed: number;
  part: number;
  rows: number;
}

const ROWS_PER_CHUNK = 500;

/** RFC 4180 quoting: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(value: string | number | null): string {
  if (value === null) return "";
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function header(spec: CsvSpec): string[] {
  const dates = spec.timeUnit === "DAILY" ? ["Date"] : ["Start Date", "End Date"];
  if (spec.kind === "search-impression-share") {
    return [...dates, "Campaign Name", "Search Term", "Impression Share %", "Impressions", "Clicks", "Spend"];
  }
  const levels =
    spec.detailLevel === "AD_GROUP"
      ? ["Campaign Name", "Ad Group Name"]
      : spec.detailLevel === "CAMPAIGN"
        ? ["Campaign Name"]
        : [];
  return [...dates, ...levels, "Audience", "Impressions", "Clicks", "Spend", "Sales", "Orders"];
}

function row(
  spec: CsvSpec,
  rng: Rng,
  index: number,
  start: number,
  days: number,
): (string | number | null)[] {
  const dates = spec.timeUnit === "DAILY" ? [isoDay(start + (index % days))] : [spec.startDate, spec.endDate];
  const impressions = rng.int(0, 50_000);
  const clicks = rng.int(0, Math.floor(impressions / 20));
  const spend = (clicks * rng.decimal(0.2, 2.5)).toFixed(2);
  if (spec.kind === "search-impression-share") {
    const share = rng.chance(0.1) ? null : rng.decimal(0.5, 99.5).toFixed(2);
    return [...dates, rng.pick(CAMPAIGN_NAMES), rng.pick(SEARCH_TERMS), share, impressions, clicks, spend];
  }
  const levels =
    spec.detailLevel === "AD_GROUP"
      ? [rng.pick(CAMPAIGN_NAMES), rng.pick(AD_GROUPS)]
      : spec.detailLevel === "CAMPAIGN"
        ? [rng.pick(CAMPAIGN_NAMES)]
        : [];
  const orders = rng.int(0, Math.max(0, Math.floor(clicks / 8)));
  const sales = rng.chance(0.05) ? null : (orders * rng.decimal(8, 60)).toFixed(2);
  return [...dates, ...levels, rng.pick(AUDIENCES), impressions, clicks, spend, sales, orders];
}

/**
 * One report part as UTF-8 CSV (header row, CRLF between rows), produced lazily in chunks so a
 * part of a million rows is streamed, never held as an array of rows.
 */
export function reportCsv(spec: CsvSpec): LazyText {
  return new LazyText(function* () {
    const rng = new Rng(spec.seed);
    const start = dayOf(spec.startDate);
    const days = Math.max(1, dayOf(spec.endDate) - start + 1);
    yield `${header(spec)
      .map((h) => `"${h}"`)
      .join(",")}\r\n`;
    let chunk = "";
    for (let i = 0; i < spec.rows; i++) {
      chunk += `${row(spec, rng, spec.part * spec.rows + i, start, days)
        .map(csvField)
        .join(",")}\r\n`;
      if ((i + 1) % ROWS_PER_CHUNK === 0) {
        yield chunk;
        chunk = "";
      }
    }
    if (chunk) yield chunk;
  });
}
