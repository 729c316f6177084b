import { ExitCode, SkillsyncError } from "../../core/errors.js";

/** The documented Google Sheets limits the connector checks before it sends anything. */
export const SHEETS_LIMITS = {
  /** Cells in one spreadsheet, all tabs together (grid cells, empty ones included). */
  cellsPerSpreadsheet: 10_000_000,
  charactersPerCell: 50_000,
  columnsPerTab: 18_278,
  tabTitleLength: 100,
  /** Google's advice for one request body; the connector splits writes below it. */
  requestBytes: 2_000_000,
  /** Write requests per minute per user. */
  writesPerMinute: 60,
} as const;

export const TRUNCATION_MARK = "…[truncated]";

/** A push or read the Sheets limits forbid; raised before any write is sent. */
export function limitError(message: string): SkillsyncError {
  return new SkillsyncError("SHEETS_LIMIT", message, ExitCode.usage);
}
