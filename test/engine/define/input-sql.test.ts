import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { writePipelineFile } from "../../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

// Issue 20: an input query `delete from skillsync_calls … returning …` emptied the call ledger
// while `plan` printed "nothing was sent", and in a `run` deleted the run history, then paid.
const pipeline = (query: string) => {
  return writePipelineFile(
    [
      "name: hostile-input",
      "skill: marketplace-search",
      "input:",
      "  name: keyword",
      `  from: { sql: ${JSON.stringify(query)} }`,
      'request: { keyword: "{{keyword}}" }',
      "records: { path: products, table: hostile_rows, mode: append }",
      "",
    ].join("\n"),
  );
};

describe.each(WAREHOUSE_KINDS)("a pipeline's input sql: on %s", (kind) => {
  it.skipIf(unavailable(kind))("can read, never write (plan and run)", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const db = freshWarehouseUrl(kind);
    const seeded = await cli(
      ["run", "marketplace-search", "--param", "keyword=a", "--param", "keyword=b", "--db", db],
      env,
    );
    expect(seeded.code).toBe(0);
    const counts = async () => {
      const w = await openWarehouse(db);
      try {
        const n = async (t: string) =>
          Number((await sql.raw<{ n: number }>(`select count(*) as n from ${t}`).execute(w.db)).rows[0]?.n);
        return { calls: await n("skillsync_calls"), runs: await n("skillsync_runs") };
      } finally {
        await w.close();
      }
    };
    const before = await counts();
    const paid = emulator.ledger().totalCalls;
    for (const query of [
      "delete from skillsync_calls returning run_id",
      "with d as (delete from skillsync_runs returning id) select id from d",
      "select 'x'; delete from skillsync_calls",
    ]) {
      for (const command of ["plan", "run"]) {
        const r = await cli([command, pipeline(query), "--db", db], env);
        expect(r.code, `${command} ${query}: ${r.err}`).toBe(2);
        expect(r.err).toMatch(/input\.from\.sql: the query failed/);
      }
    }
    // Nothing deleted: the ledger as it was; the history too. A refused `run` adds no run (its
    // query is tried before anything is made), except the writing CTE on Postgres, which EXPLAIN
    // plans without complaint: the READ ONLY transaction of the read itself refuses it, in a run.
    const after = await counts();
    expect(after.calls).toBe(before.calls);
    expect(after.runs).toBe(before.runs + (kind === "postgres" ? 1 : 0));
    expect(emulator.ledger().totalCalls).toBe(paid);
    // A read still works, bound parameters and all.
    const r = await cli(
      ["plan", pipeline("select 'usb hub' where cast(:fresh_since as text) is not null"), "--db", db],
      env,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/hostile-input\s+marketplace-search\s+1\s+1\s/);
  });
});
