import { didYouMean, type Issue } from "../../core/errors.js";
import type { ColumnSpec, PipelineFile } from "../../schema/pipeline.js";

/** What a column's `from: $name…` may read besides the record. */
const CONTEXT_HEADS = ["index", "input", "observedAt", "skill", "request", "param", "data"];

/**
 * Columns reading `$request.x`, `$param.x` or `$data.x` that can never be filled: a request member
 * the template, batch and paging do not set, or a param the file does not declare, would load
 * null in every row and say nothing. A report has no `data` to read.
 */
export function contextColumnIssues(p: PipelineFile): Issue[] {
  const requestMembers = [
    ...Object.keys(p.request),
    ...(p.batch ? [p.batch.member] : []),
    ...(p.paginate ? [p.paginate.member] : []),
  ];
  const params = Object.keys(p.params);
  const tables = [
    { path: ["records", "columns"], columns: p.records.columns },
    ...p.records.children.map((c, i) => ({
      path: ["records", "children", i, "columns"],
      columns: c.columns,
    })),
  ];
  return tables.flatMap((t) =>
    Object.entries(t.columns).flatMap(([name, spec]) => {
      const message = columnIssue(fromOf(spec), { requestMembers, params, report: p.report !== undefined });
      return message ? [{ path: [...t.path, name, "from"], code: "unknown_context", message }] : [];
    }),
  );
}

function fromOf(spec: ColumnSpec): string | undefined {
  return typeof spec === "string" || spec.value !== undefined ? undefined : spec.from;
}

function columnIssue(
  from: string | undefined,
  o: { requestMembers: string[]; params: string[]; report: boolean },
): string | undefined {
  if (!from?.startsWith("$")) return undefined;
  const [head = "", member = ""] = from.slice(1).split(/\.(.*)/s);
  if (!CONTEXT_HEADS.includes(head))
    return `${from} reads nothing: a column may read $${CONTEXT_HEADS.join(", $")}${didYouMean(head, CONTEXT_HEADS)}`;
  const first = member.split(".")[0] ?? "";
  if (head === "request" && !o.requestMembers.includes(first))
    return `${from}: the request sets no member "${first}"${didYouMean(first, o.requestMembers)}; it sets ${listed(o.requestMembers)}. Add it under request: or read another member`;
  if (head === "param" && !o.params.includes(member))
    return `${from}: this pipeline declares no param "${member}"${didYouMean(member, o.params)}; it declares ${listed(o.params)}. Declare it under params:`;
  if (head === "data" && o.report)
    return `${from}: a report's rows come from its CSV parts, which have no data member; read a CSV column instead`;
  if (head === "data" && !first) return `${from}: name a member of the answer's data, e.g. $data.total`;
  return undefined;
}

const listed = (names: string[]) => (names.length ? names.join(", ") : "none");
