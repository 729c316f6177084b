import type { Command } from "commander";
import { durationMs } from "../schema/pipeline.js";
import { parseRate } from "../schema/rate.js";
import { UsageError } from "./context.js";

/** What every command that sends calls takes about the API's rate limit (docs/rate-limits.md). */
export interface RateFlags {
  rate?: string;
  rateLimitTimeout?: string;
}

export function withRateOptions(cmd: Command): Command {
  return cmd
    .option(
      "--rate <limit>",
      "the account's known rate limit, e.g. 20/s or 600/m: calls are paced below it (default: learnt from 429s)",
    )
    .option(
      "--rate-limit-timeout <duration>",
      "fail on the rate limit only when no call has succeeded for this long, e.g. 10m (default 10m)",
    );
}

/** The client's rate settings from the flags; a mistake is exit 2 naming the flag. */
export function rateSettings(flags: RateFlags): { rate?: number; rateLimitTimeoutMs?: number } {
  const out: { rate?: number; rateLimitTimeoutMs?: number } = {};
  if (flags.rate !== undefined) {
    const rate = parseRate(flags.rate);
    if (rate === undefined)
      throw new UsageError(
        `--rate must be calls per second or minute above 0, e.g. 20/s or 600/m, got "${flags.rate}"`,
      );
    out.rate = rate;
  }
  if (flags.rateLimitTimeout !== undefined) {
    // durationMs reads what is not a duration as 0, which is refused with it.
    const ms = durationMs(flags.rateLimitTimeout);
    if (!(ms > 0))
      throw new UsageError(
        `--rate-limit-timeout must be a duration above 0 such as 30s, 10m or 1h, got "${flags.rateLimitTimeout}"`,
      );
    out.rateLimitTimeoutMs = ms;
  }
  return out;
}
