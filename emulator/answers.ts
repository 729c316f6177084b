import { fromZodIssues, ValidationError } from "../core/errors.js";
import { getOperation } from "../schema/catalog.js";
import { emulatorDay } from "./clock.js";
import { legalRecordAt } from "./generate/patent-legal.js";
import { normalizePublicationNumber } from "./generate/patent-numbers.js";
import { publishedProfile } from "./generate/patent-records.js";
import { generatorOf } from "./plan.js";

/**
 * The emulator's own answers at a date, without HTTP: what a running emulator whose clock shows
 * `date` puts in `data` for the same request (faults aside). For tests that compare what a
 * pipeline loaded at two dates with what the emulator said at each.
 */

/**
 * The `data` of a documented operation for a request at `date` (yyyy-mm-dd). Throws
 * ValidationError for an unknown slug, a bad date or a request the operation refuses; the
 * advertising reports have state (a report is created, then polled), so only a running emulator
 * answers them.
 *
 * @example answerAt("marketplace-search", { keyword: "desk lamp", page: 2 }, "2026-11-08").products
 */
export function answerAt(slug: string, body: Record<string, unknown>, date: string): Record<string, unknown> {
  const day = emulatorDay(date);
  const op = getOperation(slug);
  const generate = op && generatorOf(op);
  if (!op || !generate) {
    const why = op ? "its answers have state: ask a running emulator" : "no documented operation";
    throw new ValidationError("emulator answer", [{ path: ["slug"], message: `${slug}: ${why}` }]);
  }
  const parsed = op.request.safeParse(body);
  if (!parsed.success) throw new ValidationError(`request for ${slug}`, fromZodIssues(parsed.error.issues));
  return generate(parsed.data as Record<string, unknown>, day);
}

/**
 * One patent's record of `patent-legal-status-data` at `date`: `{ patentId, pn,
 * simpleLegalStatus, legalStatus, eventStatus, legalDate }`, every event dated on or before
 * `date`. Null when the emulator does not know the number or it is not published by then (the
 * operation leaves such a patent out). Accepts the forms the operation does (`patent/…/en`, lower case).
 *
 * @example legalStatusAt("US11234567B2", "2026-11-08")?.simpleLegalStatus // ["Active"]
 */
export function legalStatusAt(publicationNumber: string, date: string): Record<string, unknown> | null {
  const day = emulatorDay(date);
  const p = publishedProfile(normalizePublicationNumber(publicationNumber), day);
  return p ? legalRecordAt(p, day) : null;
}
