import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { listBuiltinPipelines, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { ensureViews } from "../../../engine/load/ensure-views.js";
import { makeTables } from "../../../engine/run/make-tables.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { builtin } from "../fixtures.js";

/** Every view of the schema and each of its columns, with their comments. */
const VIEW_COMMENTS = sql<{ view: string; column: string | null; comment: string | null }>`
  select c.relname as view, null as column, obj_description(c.oid, 'pg_class') as comment
  from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
  where c.relkind = 'v'
  union all
  select c.relname, a.attname, col_description(c.oid, a.attnum)
  from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  where c.relkind = 'v'
  order by 1, 2 nulls first`;

describe.skipIf(unavailable("postgres"))("view comments on postgres", () => {
  it("every built-in view and view column is described, from the pipeline files (never the bare mark)", async () => {
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    try {
      await migrateToLatest(w);
      // What runs of every built-in pipeline make before their first call: all tables and views.
      await makeTables(
        w,
        listBuiltinPipelines().map((f) => loadPipeline(f)),
      );
      const rows = (await VIEW_COMMENTS.execute(w.db)).rows;
      const views = rows.filter((r) => r.column === null);
      expect(views.map((r) => r.view)).toEqual(
        expect.arrayContaining([
          "marketplace_price_history",
          "patent_overview",
          "patent_legal_status_changes",
        ]),
      );
      // The same question as information_schema asks it: no view column without a comment.
      const nulls = await sql<{ n: string }>`
        select count(*) as n from information_schema.columns c
        join pg_views v on v.viewname = c.table_name and v.schemaname = c.table_schema
        where c.table_schema = current_schema()
          and col_description(format('%I.%I', c.table_schema, c.table_name)::regclass, c.ordinal_position) is null`.execute(
        w.db,
      );
      expect(Number(nulls.rows[0]!.n)).toBe(0);
      const bare = rows.filter((r) => !r.comment || /^skillsync view \w+$/.test(r.comment));
      expect(bare).toEqual([]);
      // A built-in's every view column is described (not the sentence for an undescribed one).
      const undescribed = rows.filter((r) => /gives (it|\w+) no description\)\.$/.test(r.comment ?? ""));
      expect(undescribed.map((r) => `${r.view}.${r.column}`)).toEqual([]);
      // The view's own comment: its description, then the mark.
      const overview = views.find((r) => r.view === "patent_overview")!.comment!;
      expect(overview).toMatch(/^[A-Z].+ \(skillsync view [0-9a-f]{16}\)$/);
    } finally {
      await w.close();
    }
  });

  it("a view is described by its columns: spec, its source columns, else a sentence; a changed description re-comments it", async () => {
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    try {
      await migrateToLatest(w);
      const base = builtin("marketplace-search")[0]!;
      const view = (description: string) => ({
        ...base,
        views: [
          {
            name: "cheap",
            description,
            columns: { top: { type: "decimal" as const, description: "The highest price." } },
            sql: "select keyword, max(price) as top, 1 as n from marketplace_search_results group by keyword",
          },
        ],
      });
      await makeTables(w, [base]);
      await ensureViews(w, view("Cheap things."));
      const first = (await VIEW_COMMENTS.execute(w.db)).rows.filter((r) => r.view === "cheap");
      expect(first.map((r) => [r.column, r.comment?.replace(/\(skillsync view \w+\)/, "(mark)")])).toEqual([
        [null, "Cheap things. (mark)"],
        ["keyword", expect.stringMatching(/keyword/i)],
        ["n", "Computed by the SQL of view cheap (marketplace-search.yaml gives n no description)."],
        ["top", "The highest price."],
      ]);
      await ensureViews(w, view("Cheaper things."));
      const second = (await VIEW_COMMENTS.execute(w.db)).rows.find((r) => r.view === "cheap" && !r.column);
      expect(second?.comment).toMatch(/^Cheaper things\. \(skillsync view \w+\)$/);
    } finally {
      await w.close();
    }
  });
});
