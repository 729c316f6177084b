import { getPath } from "../define/member-path.js";
import type { ParamValues } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { renderNumber } from "../define/template.js";
import { firstPage } from "./first-bodies.js";

/** The most pages a pipeline asks per input (1 when it does not paginate). */
export function maxPagesOf(p: LoadedPipeline, params: ParamValues): number {
  return p.paginate ? Math.max(1, renderNumber(p.paginate.maxPages, params, 1)) : 1;
}

/**
 * The body of the page after one that answered `data`, and the records fetched with it; undefined
 * when the pages end: the last allowed page, an empty page, the `total` reached, or a short page.
 */
export function nextPageBody(
  p: LoadedPipeline,
  params: ParamValues,
  maxPages: number,
  call: { body: Record<string, unknown>; pageIndex: number; fetched: number },
  data: unknown,
): { body: Record<string, unknown>; fetched: number } | undefined {
  const pg = p.paginate;
  if (!pg || call.pageIndex + 1 >= maxPages) return undefined;
  const got = getPath(data, p.records.path);
  const count = Array.isArray(got) ? got.length : got ? 1 : 0;
  if (count === 0) return undefined;
  const fetched = call.fetched + count;
  if (pg.total) {
    const total = Number(getPath(data, pg.total));
    if (Number.isFinite(total) && fetched >= total) return undefined;
  }
  const current = Number(call.body[pg.member] ?? firstPage(p));
  const step = pg.style === "offset" ? renderNumber(pg.step, params, count) : 1;
  // A short page is the last one: asking for the empty page after it would cost a call.
  if (pg.style === "offset" && count < step) return undefined;
  const value = current + step;
  return { body: { ...call.body, [pg.member]: pg.style === "offset" ? String(value) : value }, fetched };
}
