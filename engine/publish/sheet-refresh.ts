import type { SheetsConnector } from "../../connectors/sheets/connector.js";
import { notConfiguredError } from "../../connectors/sheets/google-auth.js";
import type { PushMode } from "../../connectors/sheets/push.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { redact } from "../../core/redact.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { pushRunRows } from "./sheets-push.js";

/** The tab a sheet schedule refreshes. */
export interface RefreshTarget {
  scheduleId: string;
  spreadsheet: string;
  tab: string;
  mode: PushMode;
  cron: string;
  timezone: string;
}

/** How the tick's run ended (status `error`: it could not run at all). */
export interface RefreshRun {
  runId: string | null;
  status: string;
  credits: number;
  rows: number;
  /** The credits are the catalog's guesses, not a price file's: shown as ≈ (docs/pricing.md). */
  estimated?: boolean | undefined;
  /** Why it failed or stopped. */
  note?: string | undefined;
  at: Date;
}

/** What the refresh did: lines for the log, and what went wrong writing to the sheet. */
export interface RefreshOutcome {
  lines: string[];
  problem?: string | undefined;
}

const LOADED = new Set(["succeeded", "warnings"]);
const minute = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The header cell's note: what refreshes the tab, and how its last refresh went. */
function refreshNote(p: LoadedPipeline, t: RefreshTarget, r: RefreshRun, problem?: string): string {
  const head = `Skillsync: scheduled refresh of ${p.name} (${t.cron}, ${t.timezone}; schedule ${t.scheduleId})`;
  const credits = `${r.estimated ? "≈" : ""}${r.credits} credit${r.credits === 1 ? "" : "s"}`;
  const figures = `${credits} · ${r.rows} row${r.rows === 1 ? "" : "s"}`;
  const run = r.runId ? ` (run ${r.runId})` : "";
  const kept = "The rows below are from an earlier refresh.";
  if (problem) return `${head}\nLast refresh ${minute(r.at)}: FAILED: ${problem}${run}. ${kept}`;
  if (!LOADED.has(r.status)) {
    const why = r.note ? `: ${r.note}` : "";
    return `${head}\nLast refresh ${minute(r.at)}: ${r.status.toUpperCase()} · ${figures}${why}${run}. ${kept}`;
  }
  return `${head}\nLast refresh ${minute(r.at)}: ${r.status} · ${figures}${run}.`;
}

/**
 * After a sheet schedule's tick: pushes the rows its run loaded to the tab (replace: atomically;
 * append: below, for history tables) when the run loaded, and in every case writes the outcome into
 * the header cell's note. A run that failed or stopped at its cap leaves the tab's rows as they
 * were. Never throws: what went wrong with the sheet is returned as `problem`.
 */
export async function refreshTab(
  sheets: SheetsConnector | undefined,
  w: Warehouse,
  p: LoadedPipeline,
  t: RefreshTarget,
  r: RefreshRun,
): Promise<RefreshOutcome> {
  if (!sheets) return { lines: [], problem: notConfiguredError().message };
  const lines: string[] = [];
  let problem: string | undefined;
  if (LOADED.has(r.status) && r.runId) {
    try {
      const pushed = await pushRunRows(sheets, w, p, r.runId, {
        spreadsheet: t.spreadsheet,
        tab: t.tab,
        mode: t.mode,
      });
      lines.push(`pushed ${pushed.rows} row(s) to tab "${pushed.tab}" (${pushed.mode})`);
      r = { ...r, rows: pushed.rows };
    } catch (err) {
      problem = `the rows could not be written to tab "${t.tab}": ${redact(err instanceof Error ? err.message : String(err))}`;
    }
  }
  try {
    await sheets.setHeaderNote(t.spreadsheet, t.tab, refreshNote(p, t, r, problem));
  } catch (err) {
    const why = redact(err instanceof Error ? err.message : String(err));
    problem ??= `the outcome could not be noted on tab "${t.tab}": ${why}`;
  }
  return { lines, problem };
}
