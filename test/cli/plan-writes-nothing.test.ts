import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import {
  freshWarehouseUrl,
  PG_URL,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../helpers/warehouses.js";

interface Plan {
  pipelines: {
    pipeline: string;
    calls: number;
    fromStore: number;
    morePagesAtMost: number;
    credits: number;
    inputs: number | undefined;
    dependsOn?: { dependsOn: string[]; inputsAtMost: number | null };
  }[];
  credits: number;
  creditsAtMost: number;
}

/** A pipeline of its own table whose input is `query` over the warehouse. */
const sqlInput = (query: string) =>
  writePipelineFile(
    [
      "name: from-sql",
      "skill: marketplace-search",
      "input:",
      "  name: keyword",
      `  from: { sql: ${JSON.stringify(query)} }`,
      'request: { keyword: "{{keyword}}" }',
      "records: { path: products, table: plan_only_rows, mode: append, columns: { asin: text } }",
      "",
    ].join("\n"),
  );

/** A URL of the same kind whose warehouse is not there: a file in a folder that is not there either, or a schema. */
function missingUrl(kind: WarehouseKind): string {
  const url = freshWarehouseUrl(kind);
  return kind === "sqlite" ? join(dirname(url), "not-yet", "warehouse.db") : url;
}

async function onPostgres<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Everything plan could change: the file's bytes and the files beside it (SQLite); the schema's
 * relations, the rows of each table and the migrations recorded (Postgres).
 */
async function fingerprint(kind: WarehouseKind, url: string): Promise<unknown> {
  if (kind === "sqlite") {
    return {
      sha256: createHash("sha256").update(readFileSync(url)).digest("hex"),
      files: readdirSync(dirname(url)),
    };
  }
  const schema = new URL(url).searchParams.get("schema")!;
  return onPostgres(async (c) => {
    const relations = await c.query(
      `select c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = $1 order by 1, 2`,
      [schema],
    );
    const rows: Record<string, number> = {};
    for (const r of relations.rows.filter((x) => x.relkind === "r")) {
      const n = await c.query(`select count(*)::int as n from "${schema}"."${r.relname}"`);
      rows[r.relname] = n.rows[0].n;
    }
    return { relations: relations.rows, rows };
  });
}

/** The last migration the warehouse recorded is forgotten: it is one migration behind. */
async function oneMigrationBehind(kind: WarehouseKind, url: string): Promise<void> {
  const forget = "delete from kysely_migration where name = (select max(name) from kysely_migration)";
  if (kind === "sqlite") {
    const db = new SQLite(url);
    db.prepare(forget).run();
    db.close();
    return;
  }
  const schema = new URL(url).searchParams.get("schema")!;
  await onPostgres((c) => c.query(`set search_path = "${schema}"; ${forget}`));
}

const planArgs = [
  "plan",
  "marketplace-search",
  "patent-search",
  "--param",
  "keyword=a",
  "--param",
  "keyword=b",
  "--param",
  "pages=3",
  "--param",
  "q=lidar",
  "--json",
];

describe.each(WAREHOUSE_KINDS)("plan writes nothing: on %s", (kind) => {
  it.skipIf(unavailable(kind))(
    "plans a warehouse that is not there as an empty one, and makes none",
    async () => {
      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: undefined };
      const db = missingUrl(kind);

      // The same figures as a plan that made the warehouse first (run-commands.test.ts).
      const priced = await cli([...planArgs, "--db", db], env);
      expect(priced.code, priced.err).toBe(0);
      const p = JSON.parse(priced.out) as Plan;
      expect(p.pipelines[0]).toMatchObject({
        pipeline: "marketplace-search",
        calls: 2,
        fromStore: 0,
        morePagesAtMost: 4,
      });
      expect(p.credits).toBe(3);
      expect(p.creditsAtMost).toBe(9);

      // A pipeline fed by an earlier one of the run is bounded by it, as before.
      const chained = await cli(
        ["plan", "patent-search", "patent-bibliography", "--param", "q=lidar", "--db", db, "--json"],
        env,
      );
      expect(chained.code, chained.err).toBe(0);
      expect((JSON.parse(chained.out) as Plan).pipelines[1]).toMatchObject({
        inputs: 0,
        dependsOn: { dependsOn: ["patent-search"], inputsAtMost: 10 },
      });

      // A query over a table a run makes (a built-in one, not in this run) reads nothing.
      const over = await cli(
        ["plan", sqlInput("select asin from marketplace_search_results"), "--db", db, "--json"],
        env,
      );
      expect(over.code, over.err).toBe(0);
      expect((JSON.parse(over.out) as Plan).pipelines[0]).toMatchObject({ inputs: 0, calls: 0, credits: 0 });

      // A table no pipeline makes is a mistake in the file, as in a warehouse that is there.
      const typo = await cli(["plan", sqlInput("select asin from no_such_table"), "--db", db], env);
      expect(typo.code).toBe(2);
      if (kind === "sqlite") expect(typo.err).toMatch(/input\.from\.sql: the query failed: .*no such table/);

      if (kind === "sqlite") expect(existsSync(dirname(db))).toBe(false);
      else {
        const schema = new URL(db).searchParams.get("schema")!;
        const found = await onPostgres((c) =>
          c.query("select 1 from information_schema.schemata where schema_name = $1", [schema]),
        );
        expect(found.rowCount).toBe(0);
      }
      expect(emulator.ledger().totalCalls).toBe(0);
    },
  );

  it.skipIf(unavailable(kind))(
    "leaves a warehouse that is there as it was, one behind on migrations included",
    async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const seeded = await cli(
        ["run", "marketplace-search", "--param", "keyword=a", "--param", "keyword=b", "--db", db],
        { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY },
      );
      expect(seeded.code, seeded.err).toBe(0);
      await oneMigrationBehind(kind, db);
      const before = await fingerprint(kind, db);
      const paid = emulator.ledger().totalCalls;
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: undefined };

      // Answers stored by the run are planned as such (runner.test.ts has the same figures).
      const again = await cli(
        [
          "plan",
          "marketplace-search",
          ...["a", "b", "c"].flatMap((k) => ["--param", `keyword=${k}`]),
          "--db",
          db,
          "--json",
        ],
        env,
      );
      expect(again.code, again.err).toBe(0);
      expect((JSON.parse(again.out) as Plan).pipelines[0]).toMatchObject({
        calls: 3,
        fromStore: 2,
        credits: 1,
      });

      // An input query reads the tables that are there; the pipeline's own table is not made.
      const fed = await cli(
        [
          "plan",
          sqlInput("select distinct asin from marketplace_search_results order by 1 limit 2"),
          "--db",
          db,
          "--json",
        ],
        env,
      );
      expect(fed.code, fed.err).toBe(0);
      expect((JSON.parse(fed.out) as Plan).pipelines[0]).toMatchObject({ inputs: 2, calls: 2 });

      expect(await fingerprint(kind, db)).toEqual(before);
      expect(emulator.ledger().totalCalls).toBe(paid);
    },
  );
});
