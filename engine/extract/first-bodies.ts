import { ValidationError } from "../../core/errors.js";
import { type ParamValues, typedInput } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { renderRequest } from "../define/template.js";

/** What joins the values of a batch (contract 4.4: "separated by English commas"). */
export const BATCH_SEPARATOR = ",";

/**
 * Packs identifiers into batches of at most `size` values and `maxChars` characters joined by commas.
 *
 * @example packBatches(["US1", "US2", "US3"], 2, 60000) // [["US1", "US2"], ["US3"]]
 */
export function packBatches(values: string[], size: number, maxChars: number): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let len = 0;
  for (const v of values) {
    const add = cur.length ? v.length + 1 : v.length;
    if (cur.length && (cur.length >= size || len + add > maxChars)) {
      out.push(cur);
      cur = [];
      len = 0;
    }
    len += cur.length ? v.length + 1 : v.length;
    cur.push(v);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Input values for a batch, split at the batch separator (the contract's English comma): a value
 * "US1,US2" is two identifiers to the service, so it is packed (and priced) as two. Empty pieces
 * are dropped, repeats kept once.
 *
 * @example splitBatchValues(["US1,US2", "US2", " US3 "]) // ["US1", "US2", "US3"]
 */
export function splitBatchValues(values: string[]): string[] {
  const out = new Set<string>();
  for (const v of values) {
    for (const piece of v.split(BATCH_SEPARATOR)) {
      const t = piece.trim();
      if (t) out.add(t);
    }
  }
  return [...out];
}

/** `"data:image/png;base64,iVBO…" (1400 characters)`: enough to recognise a value, never a wall of base64. */
export function preview(value: string): string {
  return value.length <= 60
    ? JSON.stringify(value)
    : `${JSON.stringify(`${value.slice(0, 40)}…`)} (${value.length} characters)`;
}

/** A first call's request body, before it is prepared, and what it asks for. */
export interface FirstBody {
  body: Record<string, unknown>;
  input: string | undefined;
  items: number;
  /** A batch's identifiers. */
  group?: string[];
}

/** A pipeline's first request bodies, rendered one at a time on demand: nothing is held per value but the value itself. */
export interface FirstBodies {
  count: number;
  at(i: number): FirstBody;
}

/** The first page's value of a paginated pipeline's page member. */
export function firstPage(p: LoadedPipeline): number {
  const pg = p.paginate;
  return pg ? (pg.start ?? (pg.style === "offset" ? 0 : 1)) : 0;
}

/** A body asking for the first page (as it is, when the pipeline does not paginate). */
function withFirstPage(p: LoadedPipeline, body: Record<string, unknown>): Record<string, unknown> {
  const pg = p.paginate;
  if (!pg) return body;
  const start = firstPage(p);
  return { ...body, [pg.member]: pg.style === "offset" ? String(start) : start };
}

/** The first-page body of a batch of identifiers. */
export function batchBody(p: LoadedPipeline, params: ParamValues, group: string[]): Record<string, unknown> {
  const joined = group.join(BATCH_SEPARATOR);
  return withFirstPage(p, {
    ...renderRequest(p.request, { ...params, [p.input!.name]: joined }),
    [p.batch!.member]: joined,
  });
}

/** The first calls' bodies: one static call, one per input value, or one per batch of values. */
export function firstBodies(
  p: LoadedPipeline,
  params: ParamValues,
  values: string[] | undefined,
): FirstBodies {
  if (values === undefined) {
    return {
      count: 1,
      at: () => ({ body: withFirstPage(p, renderRequest(p.request, params)), input: undefined, items: 1 }),
    };
  }
  if (p.batch) return batchBodies(p, params, values);
  const name = p.input!.name;
  const declared = p.params[name];
  return {
    count: values.length,
    at: (i) => ({
      body: withFirstPage(
        p,
        renderRequest(p.request, { ...params, [name]: typedInput(values[i]!, declared) }),
      ),
      input: values[i],
      items: 1,
    }),
  };
}

/**
 * A batched pipeline's first bodies. One value carries at most one call's batch: more is a mistake
 * to point out (a wrong separator, a pasted column), not something to spread over calls unasked.
 */
function batchBodies(p: LoadedPipeline, params: ParamValues, values: string[]): FirstBodies {
  const batch = p.batch!;
  const issues = values.flatMap((v) => {
    const n = v.split(BATCH_SEPARATOR).filter((x) => x.trim()).length;
    if (n <= batch.size && v.length <= batch.maxChars) return [];
    const what = n > batch.size ? `${n} identifiers` : `${v.length} characters`;
    const limit = n > batch.size ? `${batch.size} identifiers` : `${batch.maxChars} characters`;
    return [
      {
        path: [p.input!.name],
        message: `${preview(v)} holds ${what}; one value carries at most ${limit} (one call's batch)`,
      },
    ];
  });
  if (issues.length) throw new ValidationError(`input of pipeline ${p.name}`, issues);
  const groups = packBatches(splitBatchValues(values), batch.size, batch.maxChars);
  return {
    count: groups.length,
    at: (i) => ({
      body: batchBody(p, params, groups[i]!),
      input: undefined,
      items: groups[i]!.length,
      group: groups[i]!,
    }),
  };
}
