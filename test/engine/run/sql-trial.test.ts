import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { afterTest } from "../../helpers/after-test.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { writePipelineFile } from "../../helpers/pipeline-files.js";
import {
  freshWarehouseUrl,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";

const PIPELINE = `name: trial-things
skill: marketplace-search
params:
  keyword: {}
request:
  keyword: "{{keyword}}"
records:
  path: products
  table: trial_things
  key: [asin]
  columns:
    asin: text
    title: text
  children:
    - path: categories
      table: trial_thing_categories
`;

const BAD_VIEW = `${PIPELINE}views:
  - name: trial_titles
    sql: select asin, title from trial_things
  - name: trial_top
    sql: select asin, no_such_column from trial_titles
`;

const BAD_INPUT = PIPELINE.replace("params:\n  keyword: {}\n", "")
  .replace('"{{keyword}}"', '"{{kw}}"')
  .replace("records:", "input:\n  name: kw\n  from: { sql: 'select keyword from trial_missing' }\nrecords:");

/** Every table and view of the warehouse, the toolkit's own included. */
async function everything(kind: WarehouseKind, db: string): Promise<string[]> {
  const w = await openWarehouse(db);
  try {
    const query =
      kind === "sqlite"
        ? "select name from sqlite_master where type in ('table', 'view') order by name"
        : "select relname as name from pg_class where relnamespace = current_schema()::regnamespace and relkind in ('r', 'v', 'p') order by 1";
    return (await rows<{ name: string }>(w, query)).map((r) => r.name);
  } finally {
    await w.close();
  }
}

function pipelineFile(yaml: string): string {
  const file = writePipelineFile(yaml);
  afterTest(() => rmSync(dirname(file), { recursive: true, force: true }));
  return file;
}

describe.each(WAREHOUSE_KINDS)("a pipeline file refused for its SQL makes nothing on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it.each([
      ["a view", BAD_VIEW, /views\.trial_top: cannot be created: .*no_such_column/],
      ["an input query", BAD_INPUT, /input\.from\.sql: the query failed: .*trial_missing/],
    ])("%s that does not work: exit 2, nothing sent, no table made", async (_, yaml, said) => {
      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const db = freshWarehouseUrl(kind);
      const file = pipelineFile(yaml);
      const run = ["run", file, "--db", db, "--param", "keyword=usb hub"];
      // On a new warehouse and on one in use (the toolkit's tables, another pipeline's).
      const r = await cli(yaml === BAD_INPUT ? run.slice(0, -2) : run, env);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`invalid pipeline file ${file}`);
      expect(r.err).toMatch(said);
      expect(await everything(kind, db)).toEqual([]);

      expect(
        (await cli(["run", "marketplace-search", "--db", db, "--param", "keyword=lamp"], env)).code,
      ).toBe(0);
      const before = await everything(kind, db);
      expect((await cli(yaml === BAD_INPUT ? run.slice(0, -2) : run, env)).code).toBe(2);
      expect(await everything(kind, db)).toEqual(before);
      expect(before.filter((t) => t.startsWith("trial_"))).toEqual([]);
      expect(emulator.ledger().totalCalls).toBe(1);
    });

    it("SQL that works is checked and then made: views over the run's tables, inputs reading them", async () => {
      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const db = freshWarehouseUrl(kind);
      const good = BAD_VIEW.replace("no_such_column", "title");
      const r = await cli(["run", pipelineFile(good), "--db", db, "--param", "keyword=usb hub"], env);
      expect(r.code).toBe(0);
      const reads = BAD_INPUT.replace("keyword from trial_missing", "title from trial_titles limit 1");
      expect((await cli(["run", pipelineFile(reads), "--db", db], env)).code).toBe(0);
      expect(await everything(kind, db)).toEqual(
        expect.arrayContaining(["trial_things", "trial_titles", "trial_top"]),
      );
      expect(emulator.ledger().totalCalls).toBe(2);
    });
  });
});

describe.each(WAREHOUSE_KINDS)("migrate --pipelines with a view that does not work on %s", (kind) => {
  it.skipIf(unavailable(kind))("exit 2 and nothing made, the toolkit's tables neither", async () => {
    const db = freshWarehouseUrl(kind);
    const file = pipelineFile(BAD_VIEW);
    const r = await cli(["migrate", "--db", db, "--pipelines", file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/views\.trial_top: cannot be created: .*no_such_column/);
    expect(await everything(kind, db)).toEqual([]);
  });
});

describe.skipIf(unavailable("postgres"))("the trial resolves an input query, never runs it", () => {
  it("an input query's function does not run with the run's own login while the file is checked", async () => {
    // EXPLAIN plans, and planning runs an immutable function called with constants; a sequence
    // moves whatever rolls back: moved by the run's login (the reader has no use of it), it would
    // show that checking the file ran the query with the run's privileges.
    const db = freshWarehouseUrl("postgres");
    const w = await openWarehouse(db);
    const lastValue = async () =>
      (await rows<{ is_called: boolean }>(w, "select is_called from trial_sequence"))[0]?.is_called;
    try {
      await rows(w, "create sequence trial_sequence");
      // Declared immutable, so a planner evaluates a call with constant arguments once, itself.
      await rows(
        w,
        "create function trial_tick() returns text language sql immutable as $$ select nextval('trial_sequence')::text $$",
      );
      const yaml = BAD_INPUT.replace("select keyword from trial_missing", "select trial_tick() as keyword");
      const { emulator } = await emulatorWithClient();
      const r = await cli(["run", pipelineFile(yaml), "--db", db], {
        SKILL_API_BASE_URL: emulator.url,
        SKILL_API_KEY: DEMO_KEY,
      });
      expect(r.code).toBe(2);
      expect(await lastValue()).toBe(false);
      expect(emulator.ledger().totalCalls).toBe(0);
    } finally {
      await w.close();
    }
  });
});
