import { staticInput } from "../define/inputs.js";
import type { ParamValues } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { PriceTable } from "../define/prices.js";
import { unusualIdentifiers } from "../extract/identifiers.js";
import type { Prepare } from "../extract/planned-calls.js";
import { checkReportPipeline } from "../reports/csv-table.js";
import { pipelineCallFactory } from "./windows/windowed-calls.js";

/**
 * Everything about a run that can be checked before it touches the warehouse: each pipeline's
 * inputs that come from params, lists or files, and the requests they make (validated like any
 * call), and a window block's range. A bad value throws the ValidationError the run would meet
 * later, so a rejected run sends nothing and writes nothing, not even its run row. Inputs read from
 * the warehouse or a sheet are checked when the run reaches them. Returns the warnings the run
 * gives: identifiers of an unusual form, asked for all the same.
 *
 * @example preflight([loadPipeline("patent-claims")], [{ patent: ["US1,…101 ids"] }], prices, client.prepare);
 * // throws: invalid request to patent-claims: patentNumber: at most 100 values …
 */
export function preflight(
  pipelines: LoadedPipeline[],
  params: ParamValues[],
  prices: PriceTable,
  prepare: Prepare,
): string[] {
  return pipelines.flatMap((p, i) => {
    if (p.report) checkReportPipeline(p);
    const values = staticInput(p, params[i] ?? {});
    // A window block's values are checked here, whatever the input.
    const factory = pipelineCallFactory(p, params[i] ?? {}, prices, prepare);
    if (values === "dynamic") return [];
    factory.initial(values);
    return unusualIdentifiers(p, values);
  });
}
