import { ValidationError } from "../../core/errors.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { billedItems } from "../define/prices.js";
import { BATCH_SEPARATOR, type FirstBodies, preview } from "./first-bodies.js";
import { identifierScan } from "./identifiers.js";

/** Validates a request before anything is sent (the client's `prepare`). */
export type Prepare = (slug: string, body: unknown) => { slug: string; body: Record<string, unknown> };

/**
 * Every first request validated (as the client's `prepare` will), nothing kept: one
 * ValidationError names each bad input value, before anything is sent.
 */
export function checkFirsts(
  p: LoadedPipeline,
  prepare: Prepare,
  values: string[] | undefined,
  list: FirstBodies,
): void {
  const issues: { value: string; error: ValidationError }[] = [];
  const identifiers = identifierScan(p);
  for (let i = 0; i < list.count; i++) {
    try {
      const prepared = prepare(p.skill, list.at(i).body);
      identifiers.add(prepared.body);
      // One value per call: a value holding several identifiers would be billed for each.
      const items = values && !p.batch ? billedItems(p.skill, prepared.body) : 1;
      if (items > 1) {
        throw new ValidationError("input", [
          {
            path: [],
            message: `holds ${items} identifiers separated by "${BATCH_SEPARATOR}"; this pipeline sends one per call (give them as separate values)`,
          },
        ]);
      }
    } catch (err) {
      if (err instanceof ValidationError && values && !p.batch)
        issues.push({ value: values[i]!, error: err });
      else throw err;
    }
  }
  if (!issues.length) {
    identifiers.finish();
    return;
  }
  throw inputError(p, issues);
}

/** One error for a pipeline's bad input values: its input named, the member each fills, long values shortened. */
function inputError(p: LoadedPipeline, issues: { value: string; error: ValidationError }[]): ValidationError {
  const name = p.input!.name;
  return new ValidationError(
    `input of pipeline ${p.name}`,
    issues.flatMap(({ value, error }) =>
      error.issues.map((i) => ({
        ...i,
        path: [name],
        message:
          error.source === "input"
            ? `${preview(value)}: ${i.message}`
            : `${preview(value)} → request member ${i.path.join(".") || "(body)"}: ${i.message}`,
      })),
    ),
  );
}
