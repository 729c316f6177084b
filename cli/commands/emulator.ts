import type { Command } from "commander";
import { type Issue, ValidationError } from "../../core/errors.js";
import { registerSecret } from "../../core/redact.js";
import { DATE_RULE, isEmulatorDate } from "../../emulator/clock.js";
import {
  DEFAULT_EMULATOR_HOST,
  DEFAULT_EMULATOR_PORT,
  DEMO_KEY,
  type EmulatorOptions,
} from "../../emulator/options.js";
import { collect, numberFlag, portFlag } from "../context.js";
import { firstSignal } from "../daemon.js";
import { detachEmulator } from "../emulator-process/detach.js";
import { forgetEmulator, recordEmulator } from "../emulator-process/record.js";
import { STOP_WAIT_SECONDS, stopEmulator } from "../emulator-process/stop.js";
import { logNote } from "../log.js";
import { printLine } from "../output.js";
import { listenOrExplain } from "../port-in-use.js";

export interface EmulatorFlags {
  port?: string;
  host?: string;
  latency?: string;
  jitter?: string;
  rateLimit?: string;
  rateBurst?: string;
  errorRate?: string;
  errorSchedule?: string;
  timeoutRate?: string;
  malformedRate?: string;
  platformErrorRate?: string;
  driftRate?: string;
  reportPendingPolls?: string;
  reportParts?: string;
  reportRows?: string;
  failedReports?: string;
  deniedConnections?: string;
  seed?: string;
  key?: string[];
  balance?: string;
  /** `true` (the bare flag): any undocumented slug; or a comma-separated list of slugs. */
  genericSlugs?: string | boolean;
  /** The emulated date, yyyy-mm-dd (runEmulatorCommand's default: today, UTC). */
  date?: string;
}

/** Reads one numeric flag; a bad value is recorded as an issue and read as undefined. */
type ReadNumber = (
  flag: string,
  value: string | undefined,
  int: boolean,
  min: number,
  max?: number,
) => number | undefined;

/** A ReadNumber that collects every bad value in `issues`, so all of them are reported at once. */
function numberReader(issues: Issue[]): ReadNumber {
  return (flag, value, int, min, max = Number.POSITIVE_INFINITY) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (
      !/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value.trim()) ||
      !Number.isFinite(n) ||
      (int && !Number.isInteger(n)) ||
      n < min ||
      n > max
    ) {
      const range = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `between ${min} and ${max}`;
      issues.push({
        path: [`--${flag}`],
        message: `"${value}" is not ${int ? "an integer" : "a number"} ${range}`,
      });
      return undefined;
    }
    return n;
  };
}

/** A comma-separated list of call or connection numbers, each an integer >= 1. */
const numberList = (num: ReadNumber, flag: string, value: string | undefined) =>
  value === undefined ? undefined : value.split(",").map((v) => num(flag, v.trim(), true, 1) ?? 0);

/** Where the emulator listens, and the latencies, faults, report shapes and seed it answers with. */
function numericOptions(flags: EmulatorFlags, num: ReadNumber): Record<string, unknown> {
  return {
    port: num("port", flags.port ?? String(DEFAULT_EMULATOR_PORT), true, 0, 65535),
    host: flags.host ?? DEFAULT_EMULATOR_HOST,
    latencyMs: num("latency", flags.latency, true, 0),
    jitterMs: num("jitter", flags.jitter, true, 0),
    errorRate: num("error-rate", flags.errorRate, false, 0, 1),
    errorSchedule: numberList(num, "error-schedule", flags.errorSchedule),
    timeoutRate: num("timeout-rate", flags.timeoutRate, false, 0, 1),
    malformedRate: num("malformed-rate", flags.malformedRate, false, 0, 1),
    platformErrorRate: num("platform-error-rate", flags.platformErrorRate, false, 0, 1),
    driftRate: num("drift-rate", flags.driftRate, false, 0, 1),
    reportPendingPolls: num("report-pending-polls", flags.reportPendingPolls, true, 0),
    reportParts: num("report-parts", flags.reportParts, true, 1, 100),
    reportRowsPerPart: num("report-rows", flags.reportRows, true, 0),
    failedReports: numberList(num, "failed-reports", flags.failedReports),
    deniedConnections: numberList(num, "denied-connections", flags.deniedConnections),
    seed: num("seed", flags.seed, true, 0),
  };
}

/** `--key` (default the demo key), each with the `--balance` given; a key too short is an issue. */
function keyOptions(
  flags: EmulatorFlags,
  num: ReadNumber,
  issues: Issue[],
): { key: string; balance?: number }[] {
  const balance = num("balance", flags.balance, false, 0);
  const keys = flags.key && flags.key.length > 0 ? flags.key : [DEMO_KEY];
  for (const key of keys) {
    if (key.length < 8) issues.push({ path: ["--key"], message: "an API key must be at least 8 characters" });
  }
  return keys.map((key) => (balance === undefined ? { key } : { key, balance }));
}

/**
 * Turns the command-line flags into emulator options; every bad flag is reported at once.
 *
 * @example emulatorOptionsFromFlags({ port: "0", errorRate: "0.1" }) // { port: 0, errorRate: 0.1, … }
 */
export function emulatorOptionsFromFlags(flags: EmulatorFlags): EmulatorOptions {
  const issues: Issue[] = [];
  const num = numberReader(issues);
  const options = numericOptions(flags, num);
  if (flags.genericSlugs !== undefined)
    options["genericSlugs"] =
      typeof flags.genericSlugs === "boolean"
        ? flags.genericSlugs
        : flags.genericSlugs.split(",").map((s) => s.trim());
  const perSecond = num("rate-limit", flags.rateLimit, false, 0.001);
  const burst = num("rate-burst", flags.rateBurst, true, 1);
  if (perSecond !== undefined)
    options["rateLimit"] = burst === undefined ? { perSecond } : { perSecond, burst };
  if (flags.date !== undefined) {
    if (isEmulatorDate(flags.date)) options["date"] = flags.date;
    else issues.push({ path: ["--date"], message: `"${flags.date}" ${DATE_RULE}` });
  }
  options["keys"] = keyOptions(flags, num, issues);
  if (issues.length > 0) throw new ValidationError("emulator flags", issues);
  for (const [k, v] of Object.entries(options)) if (v === undefined) delete options[k];
  return options as EmulatorOptions;
}

/**
 * Runs the emulator until SIGINT or SIGTERM, then stops it cleanly. While it listens, its pid is
 * recorded under its port, so that `emulator stop` finds it (and `--detach` knows it listens).
 */
async function runEmulatorCommand(flags: EmulatorFlags): Promise<void> {
  // A running emulator answers as of today unless told otherwise; in-process ones default to a fixed date (tests).
  const options = { date: new Date().toISOString().slice(0, 10), ...emulatorOptionsFromFlags(flags) };
  if (isCustom(flags)) for (const key of flags.key ?? []) registerSecret(key);
  // Loaded here: every other command would otherwise pay for the emulator's modules at start.
  const { startEmulator } = await import("../../emulator/server.js");
  const emu = await listenOrExplain(() => startEmulator(options), {
    port: options.port ?? 0,
    host: options.host ?? "127.0.0.1",
    flag: "--port",
  });
  const signals = firstSignal();
  printLine(`Skill API emulator listening on ${emu.url}`);
  printLine(`  base URL: ${emu.url}`);
  printKeys(flags);
  printLine(`  ledger:   GET ${emu.url}/__emulator/ledger   reset: POST ${emu.url}/__emulator/reset`);
  printLine(`  faults:   ${JSON.stringify(emu.faults())}`);
  printLine(
    `  date:     ${emu.date()}   move it: POST ${emu.url}/__emulator/clock {"date":"yyyy-mm-dd"} or {"advance":"7d"}`,
  );
  printLine("Press Ctrl+C to stop.");
  try {
    recordEmulator({ pid: process.pid, port: emu.port, host: emu.host, url: emu.url });
  } catch (err) {
    // The record only serves `emulator stop`: the emulator serves without it.
    logNote(
      `skillsync: not recorded for \`emulator stop\` (${(err as Error).message})`,
      "emulator.unrecorded",
    );
  }
  try {
    const signal = await signals.signal;
    const { totalCalls, totalCredits } = emu.ledger();
    await emu.stop();
    printLine(`emulator stopped on ${signal} after ${totalCalls} calls, ${totalCredits} credits`);
  } finally {
    signals.dispose();
    forgetEmulator(emu.port, process.pid);
  }
}

/** `--detach`: the emulator as a background process; prints where it listens and how to stop it. */
async function runDetached(flags: EmulatorFlags): Promise<void> {
  // Bad flags end here, before anything is started.
  emulatorOptionsFromFlags(flags);
  const { record, log } = await detachEmulator();
  printLine(`Skill API emulator listening on ${record.url} in the background (pid ${record.pid})`);
  printLine(`  base URL: ${record.url}`);
  printKeys(flags);
  printLine(`  output:   ${log}`);
  const port = record.port === DEFAULT_EMULATOR_PORT ? "" : ` --port ${record.port}`;
  printLine(`  stop it:  npx skillsync emulator stop${port}`);
}

const isCustom = (flags: EmulatorFlags) => (flags.key?.length ?? 0) > 0;

function printKeys(flags: EmulatorFlags): void {
  // The demo key is public (it only opens this local emulator), so it is printed as is.
  if (isCustom(flags)) printLine(`  keys:     ${flags.key?.length} given with --key (not printed)`);
  else process.stdout.write(`  demo key: ${DEMO_KEY}\n`);
}

export function registerEmulatorCommand(program: Command): void {
  const emulator = program
    .command("emulator")
    .description(
      "run the local Skill API emulator (all documented operations, synthetic data, fault injection)",
    )
    .option("--port <n>", `port to listen on (0: any free port)`, String(DEFAULT_EMULATOR_PORT))
    .option("--host <host>", "address to listen on", DEFAULT_EMULATOR_HOST)
    .option(
      "--generic-slugs [slugs]",
      "also serve undocumented catalog slugs (all, or a comma-separated list) with loose data",
    )
    .option("--latency <ms>", "added latency per call, in ms")
    .option("--jitter <ms>", "random extra latency 0..ms per call")
    .option("--rate-limit <perSec>", "token-bucket rate limit per key (429 with Retry-After)")
    .option("--rate-burst <n>", "bucket size of the rate limit (default: perSec)")
    .option("--error-rate <f>", "fraction of calls answered 500/502/503 (not charged)")
    .option("--error-schedule <list>", "call numbers (ledger seq) answered 500, e.g. 3,7")
    .option("--timeout-rate <f>", "fraction of calls charged and never answered")
    .option("--malformed-rate <f>", "fraction of calls charged and answered with a broken body")
    .option("--platform-error-rate <f>", "fraction of calls answered 200 with code != 0 (not charged)")
    .option("--drift-rate <f>", "fraction of successes with extra members and nulls")
    .option(
      "--report-pending-polls <n>",
      "status polls answering PENDING before a report completes (default 2)",
    )
    .option("--report-parts <n>", "parts per completed report (default 2)")
    .option("--report-rows <n>", "CSV rows per report part (default 50)")
    .option("--failed-reports <ids>", "connectionIds whose reports end FAILED, e.g. 7,8")
    .option("--denied-connections <ids>", "connectionIds answered 403")
    .option("--seed <n>", "seed of the random faults (default 1)")
    .option("--date <yyyy-mm-dd>", "the emulated date: answers are those of that day (default today, UTC)")
    .option("--key <key>", "an accepted API key (repeatable; replaces the demo key)", collect)
    .option("--balance <credits>", "credit balance of each key (default unlimited)")
    .option("--detach", "run in the background: print its URL, demo key and pid, then exit")
    .action((flags: EmulatorFlags & { detach?: boolean }) =>
      flags.detach ? runDetached(flags) : runEmulatorCommand(flags),
    );
  emulator
    .command("stop")
    .description("stop the emulator a `skillsync emulator` (--detach or not) runs on a port")
    .option("--port <n>", `its port (default ${DEFAULT_EMULATOR_PORT})`)
    .option(
      "--wait <seconds>",
      "how long it may take to free the port after SIGTERM",
      String(STOP_WAIT_SECONDS),
    )
    .action(async (flags: { port?: string; wait: string }) => {
      // The emulator's own --port takes the flag wherever it stands (commander): read both.
      const port = portFlag("--port", flags.port ?? emulator.opts<EmulatorFlags>().port, {
        anyFree: false,
      });
      const wait = numberFlag("--wait", flags.wait, { min: 0 }) ?? STOP_WAIT_SECONDS;
      printLine(await stopEmulator(port ?? DEFAULT_EMULATOR_PORT, wait));
    });
}
