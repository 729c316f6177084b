import { canonicalJson } from "../core/hash.js";
import { type ReportKind, reportCsv } from "./generate/report-csv.js";
import { hashHex, hashSeed } from "./random.js";

/** What a call will do once it is accepted, or why it is refused (not charged). */
export type Plan =
  | { run: () => { data: Record<string, unknown>; reportId?: string } }
  | { error: { status: number; msg: string } };

export interface ReportSettings {
  pendingPolls: number;
  parts: number;
  rowsPerPart: number;
  failedReports: ReadonlySet<number>;
  deniedConnections: ReadonlySet<number>;
}

interface Report {
  id: string;
  kind: ReportKind;
  connectionId: number;
  body: Record<string, unknown>;
  seed: number;
  polls: number;
  tokens: string[] | null;
}

const KIND_BY_SLUG: Record<string, ReportKind> = {
  "marketplace-ads-sp-search-impression-share-report": "search-impression-share",
  "marketplace-ads-sp-audience-report": "audience",
};

/**
 * The asynchronous advertising reports: create → PENDING for `pendingPolls` status polls →
 * COMPLETED with a documentToken per part (or FAILED for `failedReports` connections) → download.
 * A report and its tokens belong to the connectionId that created it.
 */
export class ReportStore {
  private reports = new Map<string, Report>();
  private tokens = new Map<string, { report: Report; part: number }>();
  private created = new Map<string, number>();

  constructor(private readonly settings: ReportSettings) {}

  reset(): void {
    this.reports.clear();
    this.tokens.clear();
    this.created.clear();
  }

  plan(slug: string, body: Record<string, unknown>): Plan {
    const connectionId = body["connectionId"] as number;
    if (this.settings.deniedConnections.has(connectionId)) {
      return {
        error: { status: 403, msg: `connectionId ${connectionId} is not authorized for this account` },
      };
    }
    const kind = KIND_BY_SLUG[slug];
    if (kind) return { run: () => this.create(slug, kind, body) };
    if (slug === "marketplace-ads-sp-insights-report-status") {
      const report = this.reports.get(body["reportId"] as string);
      if (!report || report.connectionId !== connectionId) {
        return {
          error: {
            status: 404,
            msg: `no report ${String(body["reportId"])} for connectionId ${connectionId}`,
          },
        };
      }
      return { run: () => ({ data: this.poll(report), reportId: report.id }) };
    }
    const token = this.tokens.get(body["documentToken"] as string);
    if (!token || token.report.connectionId !== connectionId) {
      return {
        error: {
          status: 404,
          msg: `no report part with this documentToken for connectionId ${connectionId}`,
        },
      };
    }
    return { run: () => ({ data: this.download(token.report, token.part), reportId: token.report.id }) };
  }

  private create(slug: string, kind: ReportKind, body: Record<string, unknown>) {
    const canonical = canonicalJson(body);
    // The n-th identical create of a run gets the n-th id: stable across runs, distinct within one.
    const ordinal = (this.created.get(canonical) ?? 0) + 1;
    this.created.set(canonical, ordinal);
    const id = `rpt-${hashHex(32, slug, canonical, ordinal)}`;
    const connectionId = body["connectionId"] as number;
    this.reports.set(id, {
      id,
      kind,
      connectionId,
      body,
      seed: hashSeed(slug, canonical),
      polls: 0,
      tokens: null,
    });
    return {
      data: { reportId: id, status: "PENDING", completedReportParts: null, reportParts: null },
      reportId: id,
    };
  }

  private poll(report: Report): Record<string, unknown> {
    report.polls += 1;
    const base = { reportId: report.id, reportParts: null };
    if (report.polls <= this.settings.pendingPolls)
      return { ...base, status: "PENDING", completedReportParts: null };
    if (this.settings.failedReports.has(report.connectionId)) {
      return {
        ...base,
        status: "FAILED",
        completedReportParts: null,
        failureReason: "the provider could not generate the report",
      };
    }
    if (!report.tokens) {
      report.tokens = Array.from(
        { length: this.settings.parts },
        (_, part) => `doc-${hashHex(40, report.id, part)}`,
      );
      report.tokens.forEach((t, part) => {
        this.tokens.set(t, { report, part });
      });
    }
    const parts = report.tokens.map((documentToken, i) => ({
      documentToken,
      partNumber: i + 1,
      rowCount: this.settings.rowsPerPart,
      contentType: "text/csv",
    }));
    return { ...base, status: "COMPLETED", completedReportParts: parts };
  }

  private download(report: Report, part: number): Record<string, unknown> {
    const b = report.body;
    const content = reportCsv({
      kind: report.kind,
      startDate: b["startDate"] as string,
      endDate: b["endDate"] as string,
      timeUnit: b["timeUnit"] === "SUMMARY" ? "SUMMARY" : "DAILY",
      detailLevel:
        b["detailLevel"] === "AD_GROUP" || b["detailLevel"] === "CAMPAIGN" ? b["detailLevel"] : "ACCOUNT",
      seed: (report.seed + part * 0x9e3779b9) >>> 0,
      part,
      rows: this.settings.rowsPerPart,
    });
    return { contentType: "text/csv", content };
  }
}
