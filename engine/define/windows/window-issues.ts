import type { Issue } from "../../../core/errors.js";
import type { PipelineFile } from "../../../schema/pipeline.js";
import { WINDOW_STEP } from "../../../schema/window.js";
import { resolveDate } from "../params.js";
import { templateUses } from "../template.js";
import { isWindowName, PARAM } from "./date-range.js";

/**
 * What a window block gets wrong that the file alone shows (read time, exit 2): literal dates that
 * are none or out of order, a param of the wrong type, no request member reading the window (every
 * window would ask the same), `replace` without a key (a window asked again could not replace its rows).
 */
export function windowIssues(p: PipelineFile): Issue[] {
  const spec = p.window;
  if (!spec) return [];
  const issues: Issue[] = [];
  const literal: Record<string, string | undefined> = {};
  for (const member of ["start", "end"] as const) {
    const text = spec[member];
    const ref = PARAM.exec(text)?.[1];
    if (!ref) {
      literal[member] = resolveDate(text);
      if (!literal[member])
        issues.push({ path: ["window", member], message: `"${text}" is not a date (yyyy-mm-dd)` });
      continue;
    }
    const def = p.params[ref];
    if (def && def.type !== "date" && def.type !== "string")
      issues.push({
        path: ["window", member],
        message: `param ${ref} is of type ${def.type}; a window's ${member} takes a date param`,
      });
    if (def?.repeatable)
      issues.push({
        path: ["window", member],
        message: `param ${ref} is repeatable; a window's ${member} is one date`,
      });
  }
  if (literal["start"] && literal["end"] && literal["start"] > literal["end"])
    issues.push({
      path: ["window", "start"],
      message: `the range starts ${literal["start"]}, after its end ${literal["end"]}`,
    });
  const stepRef = PARAM.exec(spec.step)?.[1];
  const stepDef = stepRef ? p.params[stepRef] : undefined;
  for (const v of stepDef?.enum ?? []) {
    if (!WINDOW_STEP.test(v))
      issues.push({
        path: ["params", stepRef!, "enum"],
        message: `"${v}" is not a window length (window.step reads this param): use Nd, Nw, Nmo or range`,
      });
  }
  if (!templateUses(p.request).some((u) => isWindowName(u.name)))
    issues.push({
      path: ["window"],
      message:
        "no request member reads the window ({{window.start}}, {{window.end}}, {{window.start:yyyymmdd}}): every window would ask the same",
    });
  if (p.records.mode === "replace" && !p.report && !p.records.key?.length)
    issues.push({
      path: ["records", "key"],
      message:
        "mode replace with a window needs a key: a window asked again replaces its rows by key (windows not asked keep theirs)",
    });
  return issues;
}
