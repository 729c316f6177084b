import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { listBuiltinPipelines, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { compileMapping } from "../../../engine/normalize/mapping.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";

/** The built-in patent pipelines. */
const patentPipelines = () =>
  listBuiltinPipelines()
    .map((f) => loadPipeline(f))
    .filter((p) => p.name.startsWith("patent-"));

/** Each constraint of the schema: its table, type, columns in order, and what a foreign key refers to. */
const CONSTRAINTS = `
  select tc.table_name as "table", tc.constraint_type as type,
    (select string_agg(k.column_name, ',' order by k.ordinal_position) from information_schema.key_column_usage k
      where k.constraint_schema = tc.constraint_schema and k.constraint_name = tc.constraint_name) as columns,
    (select min(u.table_name) from information_schema.constraint_column_usage u
      where u.constraint_schema = rc.unique_constraint_schema and u.constraint_name = rc.unique_constraint_name) as parent,
    rc.delete_rule
  from information_schema.table_constraints tc
  left join information_schema.referential_constraints rc
    on rc.constraint_schema = tc.constraint_schema and rc.constraint_name = tc.constraint_name
  where tc.table_schema = current_schema() and tc.constraint_type in ('PRIMARY KEY', 'FOREIGN KEY')
    and tc.table_name like 'patent%'`;

/** Every patent table and its columns, with their comments (null where none). */
const COMMENTS = `
  select c.relname as "table", null as "column", obj_description(c.oid, 'pg_class') as comment
  from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
  where c.relkind = 'r' and c.relname like 'patent%'
  union all
  select c.relname, a.attname, col_description(c.oid, a.attnum)
  from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  where c.relkind = 'r' and c.relname like 'patent%'`;

describe.skipIf(unavailable("postgres"))(
  "keys, relationships and comments of the built-in patent tables",
  () => {
    it("after a run, Postgres's catalog shows each table's primary key, each child's foreign key and every comment", async () => {
      const { client } = await emulatorWithClient();
      const w = await openWarehouse(freshWarehouseUrl("postgres"));
      try {
        const all = patentPipelines();
        // Those that take publication numbers (the searches take queries; their tables are made
        // too when the others' SQL inputs read them).
        const pipelines = all.filter((p) => "patent" in p.params);
        const run = await runPipelines({
          warehouse: w,
          client,
          pipelines,
          params: { patent: ["US10000007B2", "US10000014B2"], pages: [1] },
        });
        expect([run.status, run.failures]).toEqual(["succeeded", []]);
        // The constraints took the loads: merge and history children written beside their parents.
        for (const child of ["patent_claim_texts", "patent_family_members", "patent_legal_events"])
          expect(
            Number((await rows<{ n: number }>(w, `select count(*) as n from ${child}`))[0]!.n),
            child,
          ).toBeGreaterThan(0);
        const expected: Record<string, unknown>[] = [];
        for (const p of all) {
          const m = compileMapping(p.records);
          const key = [...m.table.key];
          const history = m.mode === "history";
          const version = history ? ["valid_from"] : [];
          expect(["merge", "replace", "history"], p.name).toContain(m.mode);
          expected.push({
            table: m.table.name,
            type: "PRIMARY KEY",
            columns: [...key, ...version].join(","),
            parent: null,
            delete_rule: null,
          });
          for (const c of m.children) {
            expected.push({
              table: c.name,
              type: "PRIMARY KEY",
              columns: [...key, ...version, "position"].join(","),
              parent: null,
              delete_rule: null,
            });
            expected.push({
              table: c.name,
              type: "FOREIGN KEY",
              columns: [...key, ...version].join(","),
              parent: m.table.name,
              delete_rule: "CASCADE",
            });
          }
        }
        const made = new Set((await rows<{ table: string }>(w, COMMENTS)).map((c) => c.table));
        for (const p of pipelines) expect(made, p.name).toContain(p.records.table);
        const order = (list: Record<string, unknown>[]) => list.map((r) => JSON.stringify(r)).sort();
        expect(order(await rows(w, CONSTRAINTS))).toEqual(
          order(expected.filter((c) => made.has(String(c["table"])))),
        );
        expect(expected.filter((c) => c["type"] === "FOREIGN KEY").length).toBeGreaterThanOrEqual(10);

        const comments = await rows<{ table: string; column: string | null; comment: string | null }>(
          w,
          COMMENTS,
        );
        expect(comments.filter((c) => !c.comment).map((c) => `${c.table}.${c.column ?? ""}`)).toEqual([]);
      } finally {
        await w.close();
      }
    });
  },
);
