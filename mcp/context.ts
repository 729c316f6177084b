import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import type { LoadedPipeline } from "../engine/define/pipeline-file.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { SkillCaller } from "../engine/start/start-run.js";
import type { ColumnType } from "../schema/table.js";
import type { Ceiling } from "../store/budget.js";

export interface McpOptions {
  warehouse: Warehouse;
  /** Sends the paid calls of `run`; `plan` only validates requests with it. */
  client: SkillCaller;
  /**
   * The server's total: all the runs agents start through this server together, for as long as it
   * runs, spend at most this many credits (held in the warehouse under its own scope, `total`).
   */
  maxCredits: number;
  /** The pipelines an agent may plan and run. */
  pipelines: LoadedPipeline[];
  prices: PriceTable;
  /** `--allow-unpriced`: runs whose ceilings cannot bind an operation (priced 0, unpriced) run, with a warning. */
  allowUnpriced?: boolean | undefined;
  /** Calls in flight within one run (default 4). */
  concurrency?: number | undefined;
  /** Pushes a run's `sheet:` outputs (startRun's `outputs`) when Google Sheets is configured; undefined otherwise. */
  sheets?: SheetsConnector | undefined;
  /** Aborting interrupts a run in progress (it can be resumed); the server is closing. */
  signal?: AbortSignal | undefined;
}

/** What every tool reads: the options, with the pipelines by name and the column types they declare. */
export interface ToolContext extends McpOptions {
  byName: Map<string, LoadedPipeline>;
  /** `maxCredits` as a ceiling of every run: one scope per server (`mcp:<random id>`), so two servers on a warehouse each keep their own. */
  total: Ceiling;
  columnTypes: Map<string, Record<string, ColumnType>>;
  /** Runs and queries take turns: see `oneAtATime`. */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
}

/**
 * A queue of one. A run writes through the warehouse's connection while a SQLite query switches
 * that same connection to query_only, so the two must not overlap; and two runs at once could
 * share tables and a resume key. Agents call tools one after another, so waiting costs little.
 */
export function oneAtATime(): <T>(fn: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const next = last.then(fn, fn);
    last = next.catch(() => {});
    return next;
  };
}
