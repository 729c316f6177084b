import type { LoadedPipeline } from "../../define/pipeline-file.js";
import { compileMapping } from "../../normalize/mapping.js";

/** What a table and its columns are, as its pipeline file and the toolkit describe them. */
export interface TableComments {
  table: string | undefined;
  columns: Record<string, string>;
}

/**
 * The comments of every table the pipelines load, from the pipeline files themselves: the same
 * text Postgres keeps in its catalog (`COMMENT ON`), available on SQLite too, which has none.
 */
export function pipelineComments(pipelines: readonly LoadedPipeline[]): Map<string, TableComments> {
  const out = new Map<string, TableComments>();
  for (const p of pipelines) {
    const m = compileMapping(p.records);
    for (const t of [m.table, ...m.children]) {
      const columns = Object.fromEntries(
        t.columns.flatMap((c) => (c.description ? [[c.name, c.description] as const] : [])),
      );
      out.set(t.name, { table: t.description, columns: { ...out.get(t.name)?.columns, ...columns } });
    }
  }
  return out;
}
