import cron from "node-cron";

/**
 * The node-cron expressions whose union is what crontab means by `expr`. node-cron fires only when
 * day-of-month AND day-of-week match; crontab (Vixie cron, POSIX) fires when EITHER matches once
 * both are restricted (neither starts with `*`). So `0 6 1,15 * 1` becomes `0 6 1,15 * *` and
 * `0 6 * * 1`: the 1st, the 15th and every Monday. Any other expression is itself.
 *
 * @example crontabParts("0 0 6 1,15 * 1") // ["0 0 6 1,15 * *", "0 0 6 * * 1"]
 */
export function crontabParts(expr: string): string[] {
  const fields = expr.trim().split(/\s+/);
  const at = fields.length === 6 ? 1 : 0;
  const dom = fields[at + 2];
  const dow = fields[at + 4];
  if (fields.length < 5 || dom === undefined || dow === undefined) return [expr];
  const restricted = (f: string) => !f.startsWith("*") && f !== "?";
  if (!restricted(dom) || !restricted(dow)) return [expr];
  const withField = (i: number) => fields.map((f, j) => (j === i ? "*" : f)).join(" ");
  return [withField(at + 4), withField(at + 2)];
}

/** Asks whether an instant is a tick of an expression, as crontab means it. */
export interface CronMatcher {
  match(at: Date): boolean;
  destroy(): void;
}

/** A matcher of stopped node-cron tasks (they never fire), one per crontab part. */
export function cronMatcher(expr: string, timezone: string): CronMatcher {
  const tasks = crontabParts(expr).map((part) => cron.createTask(part, () => undefined, { timezone }));
  return {
    match: (at) => tasks.some((t) => t.match(at)),
    destroy: () => {
      for (const t of tasks) void t.destroy();
    },
  };
}
