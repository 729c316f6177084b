import { ValidationError } from "../../core/errors.js";
import {
  IDENTIFIER_MEMBERS,
  IDENTIFIER_RULE,
  identifierFault,
  isPatentIdentifierSlug,
  isUsualIdentifier,
  requestedIdentifiers,
} from "../../schema/patent-identifier.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";

/** How many values an error or a warning quotes before "…". */
const QUOTED = 5;

const quote = (values: string[]) =>
  `${values
    .slice(0, QUOTED)
    .map((v) => JSON.stringify(v))
    .join(", ")}${values.length > QUOTED ? `, … (${values.length} in all)` : ""}`;

/**
 * The identifiers of a patent-identifier pipeline's requests, checked as they are formed: one that
 * cannot be an identifier (`identifierFault`) refuses the run before anything is sent — the service
 * would answer it with no record, for a credit — naming the input and the values.
 *
 * @example const scan = identifierScan(p); scan.add(body); scan.finish(); // throws: "US 123" holds a space …
 */
export function identifierScan(p: LoadedPipeline): {
  add(body: Record<string, unknown>): void;
  finish(): void;
} {
  const on = isPatentIdentifierSlug(p.skill);
  const faults = new Map<string, string>();
  return {
    add(body) {
      if (!on) return;
      for (const v of requestedIdentifiers(body)) {
        const why = identifierFault(v);
        if (why) faults.set(v, why);
      }
    },
    finish() {
      if (!faults.size) return;
      const listed = [...faults].slice(0, QUOTED).map(([v, why]) => `${JSON.stringify(v)} ${why}`);
      const more = faults.size > QUOTED ? `; … (${faults.size} in all)` : "";
      throw new ValidationError(`input of pipeline ${p.name}`, [
        {
          path: [p.input?.name ?? "request"],
          message: `${faults.size} value(s) cannot be patent identifiers: ${listed.join("; ")}${more}. ${IDENTIFIER_RULE}. Nothing was sent`,
        },
      ]);
    },
  };
}

/** Whether a pipeline's input values are the identifiers its requests carry. */
function inputIsIdentifiers(p: LoadedPipeline): boolean {
  if (!p.input || !isPatentIdentifierSlug(p.skill)) return false;
  const members: readonly string[] = IDENTIFIER_MEMBERS;
  if (p.batch) return members.includes(p.batch.member);
  const ref = `{{${p.input.name}}}`;
  return IDENTIFIER_MEMBERS.some((m) => String(p.request[m] ?? "").includes(ref));
}

/**
 * A warning listing the input values of a patent-identifier pipeline that may be identifiers but
 * do not read as publication numbers usually do (`US123`, `JP2020-123456`): they are asked for, and
 * an empty answer for them is then no surprise. None for other pipelines.
 *
 * @example unusualIdentifiers(loadPipeline("patent-legal-status"), ["US123"]) // ["patent-legal-status: 1 identifier(s) of an unusual form …"]
 */
export function unusualIdentifiers(p: LoadedPipeline, values: string[] | undefined): string[] {
  if (!values?.length || !inputIsIdentifiers(p)) return [];
  const odd = [
    ...new Set(
      values.flatMap((v) => v.split(",").map((x) => x.trim())).filter((x) => x && !isUsualIdentifier(x)),
    ),
  ];
  if (!odd.length) return [];
  return [
    `${p.name}: ${odd.length} identifier(s) of an unusual form, asked for all the same: ${quote(odd)}; a publication number usually reads like US11234567B2 (office, number, kind), and the service may know none of these`,
  ];
}
