import { ValidationError } from "../../core/errors.js";
import { requestHash } from "../../core/hash.js";
import { getPath } from "../define/member-path.js";
import { type ParamValues, typedInput } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { billedItems, estimateCredits, type PriceTable } from "../define/prices.js";
import { renderNumber, renderRequest } from "../define/template.js";
import type { DateWindow } from "../define/windows/date-range.js";
import { identifierScan } from "./identifiers.js";
import { type ItemKeys, type ItemSplit, itemKeys, itemSplitOf } from "./item-parts.js";

/** Validates a request before anything is sent (the client's `prepare`). */
export type Prepare = (slug: string, body: unknown) => { slug: string; body: Record<string, unknown> };

export interface PlannedCall {
  skill: string;
  body: Record<string, unknown>;
  hash: string;
  credits: number;
  /** The input value this call is for (undefined for batches and static calls). */
  input: string | undefined;
  /** Identifiers in the batch (1 for other calls), for per-identifier prices. */
  items: number;
  /** 0 for the first page. */
  pageIndex: number;
  /** Records received so far for this input (pagination stops at `total`). */
  fetched: number;
  /** A batch whose answer splits per item: its items and each one's key (item-parts.ts). */
  parts?: ItemKeys | undefined;
  /** The date window this call asks for (a pipeline with a `window:` block; engine/run/windows/windowed-calls.ts). */
  window?: DateWindow | undefined;
}

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

/** What joins the values of a batch (contract 4.4: "separated by English commas"). */
const BATCH_SEPARATOR = ",";

/** `"data:image/png;base64,iVBO…" (1400 characters)`: enough to recognise a value, never a wall of base64. */
function preview(value: string): string {
  return value.length <= 60
    ? JSON.stringify(value)
    : `${JSON.stringify(`${value.slice(0, 40)}…`)} (${value.length} characters)`;
}

/** A pipeline's first calls, made one at a time as the runner takes them: a run of 100,000 inputs never holds 100,000 requests. */
export interface CallPlan extends Iterable<PlannedCall> {
  count: number;
}

export interface CallFactory {
  /**
   * Validates the request of every input value (throws one ValidationError naming each bad value,
   * before anything is sent) and returns the calls to make, formed lazily. `checked`: these
   * values passed that check already (preflight), so the pass is not made twice.
   */
  initial(values: string[] | undefined, checked?: boolean): CallPlan;
  /** Every first call, formed now (plans and previews). */
  all(values: string[] | undefined): PlannedCall[];
  /** The next page after `call` answered `data`, or undefined when the pages end. */
  next(call: PlannedCall, data: unknown): PlannedCall | undefined;
  maxPages: number;
  /** Set when the pipeline's batches split per item: each item is paid once within its freshness. */
  split: ItemSplit | undefined;
  /** The batch call asking for exactly these items (at most one batch's worth). */
  forItems(items: string[]): PlannedCall;
}

/** Forms a pipeline's calls: static members, one call per input value or per batch, and pages. */
export function callFactory(
  p: LoadedPipeline,
  params: ParamValues,
  prices: PriceTable,
  prepare: Prepare,
): CallFactory {
  const pg = p.paginate;
  const maxPages = pg ? Math.max(1, renderNumber(pg.maxPages, params, 1)) : 1;
  const start = pg ? (pg.start ?? (pg.style === "offset" ? 0 : 1)) : 0;

  const split = itemSplitOf(p);

  const make = (
    body: Record<string, unknown>,
    input: string | undefined,
    items: number,
    pageIndex: number,
    fetched: number,
    group?: string[],
  ): PlannedCall => {
    const prepared = prepare(p.skill, body);
    // Priced as billed: the items counted in the body that will be sent, not the values packed.
    const billed = Math.max(items, billedItems(p.skill, prepared.body));
    return {
      skill: p.skill,
      body: prepared.body,
      hash: requestHash(p.skill, prepared.body),
      credits: estimateCredits(prices, p.skill, billed),
      input,
      items: billed,
      pageIndex,
      fetched,
      parts: split && group ? itemKeys(p.skill, split, prepared.body, group) : undefined,
    };
  };

  const withPage = (body: Record<string, unknown>) =>
    pg ? { ...body, [pg.member]: pg.style === "offset" ? String(start) : start } : body;

  /** The first-page body of a batch of identifiers. */
  const batchBody = (group: string[]): Record<string, unknown> => {
    const joined = group.join(BATCH_SEPARATOR);
    return withPage({
      ...renderRequest(p.request, { ...params, [p.input!.name]: joined }),
      [p.batch!.member]: joined,
    });
  };

  /** The first calls, rendered one at a time on demand: nothing is held per value but the value itself. */
  const firsts = (
    values: string[] | undefined,
  ): {
    count: number;
    at(i: number): {
      body: Record<string, unknown>;
      input: string | undefined;
      items: number;
      group?: string[];
    };
  } => {
    if (values === undefined) {
      return {
        count: 1,
        at: () => ({ body: withPage(renderRequest(p.request, params)), input: undefined, items: 1 }),
      };
    }
    const name = p.input!.name;
    const declared = p.params[name];
    const batch = p.batch;
    if (batch) {
      // One value carries at most one call's batch: more is a mistake to point out (a wrong
      // separator, a pasted column), not something to spread over calls unasked.
      const issues = values.flatMap((v) => {
        const n = v.split(BATCH_SEPARATOR).filter((x) => x.trim()).length;
        if (n <= batch.size && v.length <= batch.maxChars) return [];
        const what = n > batch.size ? `${n} identifiers` : `${v.length} characters`;
        const limit = n > batch.size ? `${batch.size} identifiers` : `${batch.maxChars} characters`;
        return [
          {
            path: [name],
            message: `${preview(v)} holds ${what}; one value carries at most ${limit} (one call's batch)`,
          },
        ];
      });
      if (issues.length) throw new ValidationError(`input of pipeline ${p.name}`, issues);
      const groups = packBatches(splitBatchValues(values), batch.size, batch.maxChars);
      return {
        count: groups.length,
        at: (i) => ({
          body: batchBody(groups[i]!),
          input: undefined,
          items: groups[i]!.length,
          group: groups[i]!,
        }),
      };
    }
    return {
      count: values.length,
      at: (i) => ({
        body: withPage(renderRequest(p.request, { ...params, [name]: typedInput(values[i]!, declared) })),
        input: values[i],
        items: 1,
      }),
    };
  };

  /** Every first request validated (as the client's `prepare` will), nothing kept. */
  const check = (values: string[] | undefined, list: ReturnType<typeof firsts>): void => {
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
    const name = p.input!.name;
    throw new ValidationError(
      `input of pipeline ${p.name}`,
      issues.flatMap(({ value, error }) =>
        error.issues.map((i) => ({
          ...i,
          // Name the pipeline's input and the member it fills; a long value (a data: URI) is shortened.
          path: [name],
          message:
            error.source === "input"
              ? `${preview(value)}: ${i.message}`
              : `${preview(value)} → request member ${i.path.join(".") || "(body)"}: ${i.message}`,
        })),
      ),
    );
  };

  const first = (list: ReturnType<typeof firsts>, i: number): PlannedCall => {
    const f = list.at(i);
    return make(f.body, f.input, f.items, 0, 0, f.group);
  };

  return {
    maxPages,
    split,
    forItems: (group) => make(batchBody(group), undefined, group.length, 0, 0, group),
    initial(values, checked = false) {
      const list = firsts(values);
      if (!checked) check(values, list);
      return {
        count: list.count,
        *[Symbol.iterator]() {
          for (let i = 0; i < list.count; i++) yield first(list, i);
        },
      };
    },
    all(values) {
      const list = firsts(values);
      check(values, list);
      return Array.from({ length: list.count }, (_, i) => first(list, i));
    },
    next(call, data) {
      if (!pg || call.pageIndex + 1 >= maxPages) return undefined;
      const got = getPath(data, p.records.path);
      const count = Array.isArray(got) ? got.length : got ? 1 : 0;
      if (count === 0) return undefined;
      const fetched = call.fetched + count;
      if (pg.total) {
        const total = Number(getPath(data, pg.total));
        if (Number.isFinite(total) && fetched >= total) return undefined;
      }
      const current = Number(call.body[pg.member] ?? start);
      const step = pg.style === "offset" ? renderNumber(pg.step, params, count) : 1;
      // A short page is the last one: asking for the empty page after it would cost a call.
      if (pg.style === "offset" && count < step) return undefined;
      const value = current + step;
      const body = { ...call.body, [pg.member]: pg.style === "offset" ? String(value) : value };
      return make(body, call.input, call.items, call.pageIndex + 1, fetched);
    },
  };
}
