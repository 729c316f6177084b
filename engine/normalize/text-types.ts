/**
 * The one place that says which text is a date or a timestamp, for both inferrers: members of JSON
 * answers (infer-members.ts) and cells of CSV reports (infer-cells.ts).
 */
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const ZONE = /(Z|[+-]\d{2}:?\d{2})$/;

/** `2025-01-03` (a real calendar day). */
export function isDate(s: string): boolean {
  return DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));
}

/**
 * `2025-01-03T06:30:00Z`, `2025-01-03 06:30+01:00`. JSON answers carry machine timestamps, so a
 * member without a zone stays text there (`zone: "required"`); CSV reports write the provider's
 * report times, often without one (`zone: "optional"`).
 */
export function isTimestamp(s: string, zone: "required" | "optional"): boolean {
  if (!TIMESTAMP.test(s)) return false;
  if (zone === "required" && !ZONE.test(s)) return false;
  return zone === "optional" || !Number.isNaN(Date.parse(s));
}
