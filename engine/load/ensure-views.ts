import { createHash } from "node:crypto";
import { basename } from "node:path";
import { isBusy, isDeadlock, isViewCreatedMeanwhile } from "../../connectors/warehouse/driver-errors.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { SkillsyncError, ValidationError } from "../../core/errors.js";
import type { TableDef } from "../../schema/table.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { compileMapping } from "../normalize/mapping.js";

/** What a view's comments say: its own, its columns' by name, and the one for a column none describes. */
export interface ViewText {
  view: string;
  columns: ReadonlyMap<string, string>;
  computed: (column: string) => string;
}

/**
 * Makes view `name` show `body` with the comments `text` gives unless it already does (its mark is
 * their hash); another process making the same view at the same moment is not an error.
 */
export async function ensureView(w: Warehouse, name: string, body: string, text: ViewText): Promise<void> {
  // Where there are no comments the mark is the body's alone: a changed description re-makes nothing.
  const said = w.adapter.comments
    ? [text.view, ...[...text.columns].sort(([a], [b]) => (a < b ? -1 : 1))]
    : [];
  const marked = said.length ? `${body}\n${JSON.stringify(said)}` : body;
  const mark = `skillsync view ${createHash("sha256").update(marked).digest("hex").slice(0, 16)}`;
  const column = (c: string) => text.columns.get(c) ?? text.computed(c);
  try {
    await w.adapter.ensureView(w.db, name, body, mark, { view: text.view, column });
  } catch (err) {
    if (!isViewCreatedMeanwhile(err)) throw err;
  }
}

/**
 * A pipeline view's comments: its `description:`; each column's from the view's `columns:`, else
 * from the column of the same name in the tables its SQL names (in the order it names them).
 */
function pipelineViewText(
  p: LoadedPipeline,
  v: LoadedPipeline["views"][number],
  sources: LoadedPipeline[],
): ViewText {
  const defs = new Map<string, TableDef>();
  for (const s of sources) {
    const m = compileMapping(s.records);
    for (const def of [m.table, ...m.children]) {
      defs.set(def.name, def);
      // The `_current` view shows its table's columns.
      if (m.mode === "history") defs.set(`${def.name}_current`, def);
    }
  }
  const columns = new Map<string, string>();
  for (const [name, spec] of Object.entries(v.columns)) {
    if (typeof spec !== "string" && spec.description) columns.set(name, spec.description);
  }
  for (const word of new Set(v.sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? [])) {
    for (const c of defs.get(word)?.columns ?? []) {
      if (c.description && !columns.has(c.name)) columns.set(c.name, c.description);
    }
  }
  const file = basename(p.file);
  return {
    view: v.description ?? `A view pipeline ${p.name} declares (${file} gives it no description).`,
    columns,
    computed: (c) => `Computed by the SQL of view ${v.name} (${file} gives ${c} no description).`,
  };
}

/**
 * Creates the views a pipeline declares, and re-creates a view whose declared SQL changed; a view
 * the warehouse already has as declared is left alone. Each must be one SELECT.
 *
 * Every run ensures its pipelines' views (and those of the pipelines it reads), so "left alone" matters: on Postgres,
 * replacing a view waits for every query reading it, and every later reader waits behind that
 * (a long analyst query would hold up each scheduled run). Which definition a view has is marked on
 * it: a comment inside the SQL SQLite keeps, the end of the `COMMENT ON VIEW` on Postgres, where the
 * view and its columns are described (`pipelineViewText`). `sources` are the pipelines whose tables
 * its SQL may read (their columns' descriptions describe the view's).
 */
export async function ensureViews(
  w: Warehouse,
  p: LoadedPipeline,
  sources: LoadedPipeline[] = [p],
): Promise<void> {
  for (const v of p.views) {
    const body = v.sql.trim().replace(/;\s*$/, "");
    if (!/^(select|with)\b/i.test(body) || body.includes(";")) {
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: "must be a single SELECT statement" },
      ]);
    }
    try {
      await ensureView(w, v.name, body, pipelineViewText(p, v, sources));
    } catch (err) {
      // Another process held the warehouse: not the pipeline file's fault (a run ensures the views
      // of the pipelines it reads, so that file may not even be part of this run).
      if (isBusy(err) || isDeadlock(err)) {
        throw new SkillsyncError(
          "WAREHOUSE_BUSY",
          `${w.description} stayed locked by another process while view ${v.name} was being created: run again once the other process has finished`,
          undefined,
          { cause: err },
        );
      }
      const msg = err instanceof Error ? err.message : String(err);
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: `cannot be created: ${msg}` },
      ]);
    }
  }
}
