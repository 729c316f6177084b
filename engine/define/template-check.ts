import { didYouMean, type Issue } from "../../core/errors.js";

import type { PipelineFile } from "../../schema/pipeline.js";
import { templateUses } from "./template.js";
import { isWindowName, WINDOW_VARS } from "./windows/date-range.js";

/**
 * The `{{name}}` templates of a pipeline that name nothing it defines. Left alone, such a member
 * would be dropped from every request and the calls paid for without it (`{{sed}}` for `{{seed}}`).
 * Requests see the params, the input's name and, with a `window:` block, the window's values; the
 * window block and the sheet output see the params.
 */
export function undefinedTemplates(p: PipelineFile): Issue[] {
  const params = Object.keys(p.params);
  const forRequests = [
    ...new Set([...params, ...(p.input ? [p.input.name] : []), ...(p.window ? WINDOW_VARS : [])]),
  ];
  const uses = [
    ...templateUses(p.window, ["window"]).map((u) => ({ ...u, known: params })),
    ...templateUses(p.request, ["request"]).map((u) => ({ ...u, known: forRequests })),
    ...templateUses(p.paginate?.maxPages, ["paginate", "maxPages"]).map((u) => ({ ...u, known: params })),
    ...templateUses(p.paginate?.step, ["paginate", "step"]).map((u) => ({ ...u, known: params })),
    ...templateUses(p.sheet?.spreadsheet, ["sheet", "spreadsheet"]).map((u) => ({ ...u, known: params })),
    ...templateUses(p.sheet?.tab, ["sheet", "tab"]).map((u) => ({ ...u, known: params })),
  ];
  return uses
    .filter((u) => !u.known.includes(u.name))
    .map((u) => ({
      path: u.path,
      code: "undefined_template",
      message:
        !p.window && isWindowName(u.name) && u.path[0] === "request"
          ? `{{${u.name}}} reads a date window, but this pipeline has no window: block (window: { start, end, step })`
          : `{{${u.name}}} is not defined${didYouMean(u.name, u.known)}: ` +
            (u.known.length
              ? `this pipeline defines ${u.known.join(", ")}`
              : "this pipeline defines no params (declare it under params)"),
    }));
}
