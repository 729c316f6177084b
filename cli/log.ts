import { Option } from "commander";
import pino from "pino";
import { readConfig } from "../core/env-config.js";
import { type Log, textLog } from "../core/log.js";
import { redact, redactDeep } from "../core/redact.js";

export type LogFormat = "text" | "json";
const FORMATS: readonly LogFormat[] = ["text", "json"];

/** The global `--log-format` option (main.ts); SKILLSYNC_LOG_FORMAT is its default. */
export function logFormatOption(): Option {
  return new Option(
    "--log-format <format>",
    "how serve, schedule, worker, run and mcp log on stderr: text, or json (one object per line; default SKILLSYNC_LOG_FORMAT or text)",
  ).choices(FORMATS);
}

let current: LogFormat = "text";
let logger: Log | undefined;

/** Sets the format of this invocation: the flag, else SKILLSYNC_LOG_FORMAT, else text. */
export function setLogFormat(flag: string | undefined): void {
  resetLogFormat();
  // The flag is one of FORMATS (commander checks its choices); a wrong variable throws when read.
  current = (flag as LogFormat | undefined) ?? readConfig().logFormat ?? "text";
}

let quiet = false;

/** `--quiet`: only warnings and errors reach stderr (results on stdout are unchanged). */
export function setQuiet(on: boolean): void {
  quiet = on;
  logger = undefined;
}

export function isQuiet(): boolean {
  return quiet;
}

/** Back to text, before a command line is parsed (tests run several in one process). */
export function resetLogFormat(): void {
  current = "text";
  quiet = false;
  logger = undefined;
}

export function logFormat(): LogFormat {
  return current;
}

/** The logger of this invocation, in its format, writing to stderr (never stdout: MCP's channel). */
export function cliLog(): Log {
  if (!logger) {
    const all = current === "json" ? jsonLog() : textLog();
    logger = quiet
      ? (message, fields) => (LOUD.has(fields.level ?? "info") ? all(message, fields) : undefined)
      : all;
  }
  return logger;
}

const LOUD = new Set(["warn", "error"]);

/** A note for the person at the terminal, on stderr: as it is in text, an event in JSON. */
export function logNote(text: string, event = "note"): void {
  if (quiet) return;
  if (current === "json") cliLog()(text, { event });
  else process.stderr.write(`${redact(text)}\n`);
}

// Members whose value is a secret whatever it says; core/redact.ts catches registered secrets in
// any other member and in the message.
const SECRET_PATHS = ["apiKey", "secret", "password", "token", "authorization"].flatMap((k) => [k, `*.${k}`]);

/**
 * One JSON object per line (pino): time (ISO), level (a word), event, runId where there is one,
 * message, and the event's other members. `write` defaults to stderr.
 */
export function jsonLog(write: (line: string) => void = (l) => process.stderr.write(l)): Log {
  const p = pino(
    {
      level: "debug",
      messageKey: "message",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: SECRET_PATHS, censor: "[redacted]" },
    },
    { write },
  );
  return (message, fields) => {
    const { level = "info", ...rest } = fields;
    p[level](redactDeep(rest), redact(message));
  };
}
