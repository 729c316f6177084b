import { redact } from "./redact.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * What an event is, besides its message: a stable dotted `event` name (`run.started`,
 * `http.request`, `schedule.tick`, `worker.batch`), its level (default info), the run it belongs
 * to, and any other members a log collector may filter on. Values must hold no secret; the
 * loggers redact anyway.
 */
interface LogFields {
  event: string;
  level?: LogLevel | undefined;
  runId?: string | null | undefined;
  [member: string]: unknown;
}

/**
 * The logger the long-running parts take (server, scheduler, worker, MCP, notifications). The
 * message comes first so that a plain `(line) => lines.push(line)` still receives the text; the
 * command line chooses the format (text or JSON, `cli/log.ts`), the parts never do.
 *
 * @example log("batch b1 of run r1: 3 call(s)", { event: "worker.batch", runId: "r1", calls: 3 })
 */
export type Log = (message: string, fields: LogFields) => void;

/** A logger that drops everything (the default of a part given none). */
export const silentLog: Log = () => {};

/**
 * The text format: one line per event, the time first, the message redacted (as the commands
 * have always logged). `write` defaults to stderr.
 */
export function textLog(write: (line: string) => void = (l) => process.stderr.write(l)): Log {
  return (message) => write(`${new Date().toISOString()} ${redact(message)}\n`);
}
