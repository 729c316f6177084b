import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { readWarehouse } from "../../engine/define/warehouse-reads.js";
import { makeTables } from "../../engine/run/make-tables.js";
import { migrateToLatest } from "../../store/migrate.js";
import { freshWarehouseUrl, unavailable } from "../helpers/warehouses.js";

const page = readFileSync(fileURLToPath(new URL("../../docs/analysts.md", import.meta.url)), "utf8");

/** docs/analysts.md's catalog query whose first line is `-- Postgres: <title>`. */
function catalogQuery(title: string): string {
  const block = [...page.matchAll(/```sql\n(-- Postgres: [^\n]+)\n([\s\S]*?)```/g)].find((m) =>
    m[1]!.endsWith(title),
  );
  if (!block) throw new Error(`docs/analysts.md has no query "-- Postgres: ${title}"`);
  return block[2]!;
}

describe.skipIf(unavailable("postgres"))("docs/analysts.md catalog queries, as the reader login", () => {
  it("show every key, foreign key and comment where information_schema shows the reader none", async () => {
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    try {
      await migrateToLatest(w);
      await makeTables(
        w,
        listBuiltinPipelines().map((f) => loadPipeline(f)),
      );
      const [who] = await readWarehouse(w, "select current_user as u");
      expect(String(who!["u"])).toMatch(/^skillsync_read_/);
      // Why the page gives them: the reader may only read, so these views hide the constraints.
      const hidden = await readWarehouse(
        w,
        `select (select count(*) from information_schema.table_constraints where table_schema = current_schema()) as tc,
          (select count(*) from information_schema.referential_constraints where constraint_schema = current_schema()) as rc`,
      );
      expect(hidden).toEqual([{ tc: 0, rc: 0 }]);

      const keys = await readWarehouse(w, catalogQuery("keys and foreign keys"));
      const row = (table: string, type: string, column: string) =>
        keys.find(
          (k) => k["table_name"] === table && k["constraint_type"] === type && k["column_name"] === column,
        );
      expect(row("patent_bibliography", "PRIMARY KEY", "publication_number")).toBeDefined();
      expect(row("patent_inventors", "FOREIGN KEY", "publication_number")).toMatchObject({
        references_table: "patent_bibliography",
        references_column: "publication_number",
      });
      // A history child's foreign key: to its parent's version (key and valid_from).
      expect(row("patent_legal_events", "FOREIGN KEY", "valid_from")).toMatchObject({
        references_table: "patent_legal_status",
        references_column: "valid_from",
      });

      const comments = await readWarehouse(w, catalogQuery("tables, views, columns and their comments"));
      expect(comments.length).toBeGreaterThan(100);
      expect(comments.filter((c) => c["column_comment"] === null)).toEqual([]);
      const overview = comments.find(
        (c) => c["table_name"] === "patent_overview" && c["column_name"] === "status_observed_at",
      );
      expect(overview?.["table_comment"]).toMatch(/legal status\. \(skillsync view [0-9a-f]{16}\)$/);
      expect(overview?.["column_comment"]).toMatch(/observed/);
    } finally {
      await w.close();
    }
  });
});
