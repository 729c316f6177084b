import { type Issue, ValidationError } from "../../core/errors.js";
import { getOperation } from "../../schema/catalog.js";
import type { ColumnSpec, RecordsSpec } from "../../schema/pipeline.js";
import type { ColumnType, TableDef } from "../../schema/table.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { CsvRecord } from "../normalize/csv.js";
import { inferColumns, numericCell, typedCell } from "../normalize/infer-cells.js";
import { type CompiledMapping, compileMapping } from "../normalize/mapping.js";
import { TOOLKIT_COLUMNS } from "../normalize/table-comments.js";

/** The toolkit's columns on every report row; the default key of a report table. */
const REPORT_KEY = ["report_id", "report_part", "report_row"];

const META: Record<string, ColumnSpec> = {
  report_id: { from: "__report_id", type: "text", description: TOOLKIT_COLUMNS.reportId },
  report_part: { from: "__report_part", type: "integer", description: TOOLKIT_COLUMNS.reportPart },
  report_row: { from: "__report_row", type: "integer", description: TOOLKIT_COLUMNS.reportRow },
};

export interface CsvTable {
  mapping: CompiledMapping;
  /** The table as written: declared, inferred and meta columns, the key. */
  def: TableDef;
  /**
   * Prepares a CSV record for the mapping: typed columns' cells cleaned (`12.5%` → `12.5`). The
   * record itself is changed and returned: a copy per row (two, with the meta columns) was most of
   * the garbage V8 promoted while a million-row part loaded, and its old space grew to match.
   */
  clean(record: CsvRecord): Record<string, unknown>;
}

/** Checks a report pipeline once, before anything is sent: the CSV records and the operations' roles. */
export function checkReportPipeline(p: LoadedPipeline): void {
  const issues: Issue[] = [];
  if (p.records.path !== ".") {
    issues.push({
      path: ["records", "path"],
      message: 'must be "." for a report: the CSV rows are the records',
    });
  }
  if (p.records.children.length) {
    issues.push({ path: ["records", "children"], message: "a report's CSV rows are flat: no child tables" });
  }
  const roles: [string[], string, string][] = [
    [["skill"], p.skill, "create"],
    [["report", "status"], p.report?.status ?? "", "status"],
    [["report", "download"], p.report?.download ?? "", "download"],
  ];
  for (const [path, slug, role] of roles) {
    const known = getOperation(slug)?.reportRole;
    if (known && known !== role) {
      issues.push({ path, message: `${slug} is a report ${known} operation, not the ${role} one` });
    }
  }
  if (issues.length) throw new ValidationError(`pipeline file ${p.file}`, issues);
}

/**
 * How a CSV part becomes rows. Declared `columns` name snake_case header columns (`from` may
 * give the header's own text, or `$request.x`, `$param.x`, `$observedAt`); their types win.
 * Header columns nobody declared are kept: as their own columns when `inferColumns` is on (typed
 * as the table already has them, else from the first batch's cells), otherwise in `extra` JSON.
 *
 * @example
 * const t = planCsvTable(records, ["Date", "Clicks"], ["date", "clicks"], sample, new Map());
 * t.mapping.normalise(sample.map(t.clean), ctx);
 */
export function planCsvTable(
  records: RecordsSpec,
  header: string[],
  columns: string[],
  sample: CsvRecord[],
  existing: ReadonlyMap<string, ColumnType>,
): CsvTable {
  const cleaners: Cleaners = new Map();
  const declared = declaredColumns(records, new Map(header.map((h, i) => [h, columns[i]!])), cleaners);
  const inferred = records.inferColumns ? inferredColumns(columns, declared, sample, existing, cleaners) : {};
  const key = records.key ?? REPORT_KEY;
  const mapping = compileMapping({
    ...records,
    path: ".",
    key: records.key,
    // CSV columns are inferred here, per part; the JSON inference of the mapping stays off.
    inferColumns: false,
    columns: { ...declared, ...inferred, ...META },
    children: [],
  });
  const def: TableDef = { ...mapping.table, key };
  const cleanList = [...cleaners];
  return {
    mapping,
    def,
    clean(record) {
      const out: Record<string, unknown> = record;
      for (const [col, fn] of cleanList) if (col in out) out[col] = fn(record[col] ?? null);
      return out;
    },
  };
}

/** Per header column, how its cells are cleaned for its type. */
type Cleaners = Map<string, (cell: string | null) => unknown>;

function cleanerFor(type: ColumnType): ((cell: string | null) => unknown) | undefined {
  return type === "integer" || type === "number" || type === "decimal"
    ? numericCell
    : type === "text" || type === "json"
      ? undefined
      : typedCell;
}

/** The declared columns, `from` a header's own text turned into its column; their cleaners into `cleaners`. */
function declaredColumns(
  records: RecordsSpec,
  byHeader: ReadonlyMap<string, string>,
  cleaners: Cleaners,
): Record<string, ColumnSpec> {
  const declared: Record<string, ColumnSpec> = {};
  for (const [name, spec] of Object.entries(records.columns)) {
    const s = typeof spec === "string" ? { type: spec } : spec;
    if ("value" in s && s.value !== undefined) {
      declared[name] = spec;
      continue;
    }
    const from = "from" in s && s.from !== undefined ? (byHeader.get(s.from) ?? s.from) : name;
    declared[name] = { ...s, from, type: s.type ?? "text" };
    const clean = cleanerFor(s.type ?? "text");
    if (clean && !from.startsWith("$") && !cleaners.has(from)) cleaners.set(from, clean);
  }
  return declared;
}

/** Header columns nobody declared, typed as the table has them, else from the sample's cells. */
function inferredColumns(
  columns: string[],
  declared: Record<string, ColumnSpec>,
  sample: CsvRecord[],
  existing: ReadonlyMap<string, ColumnType>,
  cleaners: Cleaners,
): Record<string, ColumnSpec> {
  const used = new Set(Object.values(declared).map((s) => (typeof s === "string" ? "" : (s.from ?? ""))));
  const unknown = columns.filter((c) => !used.has(c));
  const inferred: Record<string, ColumnSpec> = {};
  const guesses = inferColumns(
    unknown.filter((c) => !existing.has(c)),
    sample,
  );
  for (const c of unknown) {
    if (c in declared || c in META) continue;
    const type = existing.get(c) ?? guesses.get(c) ?? "text";
    inferred[c] = { from: c, type, description: TOOLKIT_COLUMNS.reportColumn(c) };
    const clean = cleanerFor(type);
    if (clean) cleaners.set(c, clean);
  }
  return inferred;
}
