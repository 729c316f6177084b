import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { afterTest } from "../../helpers/after-test.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

// Issue 47: a file of one's own on a built-in's table with another key (what `init patent-cited-by`
// wrote), run first; the built-in run afterwards added columns and an index to that table, then
// failed `NOT NULL constraint failed: patent_cited_by.pn`. A table that cannot take a pipeline's
// rows is now refused before anything is altered, migrated or paid.

/** The warehouse's tables, their columns, primary keys and indexes, as the adapter reads them. */
async function shape(db: string) {
  const w = await openWarehouse(db);
  try {
    const c = await w.adapter.readCatalog(w.db);
    const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
    return {
      columns: sorted(c.columns).map(([t, cols]) => [t, [...cols].sort()]),
      primaryKeys: sorted(c.primaryKeys),
      indexes: [...c.indexes].sort(),
    };
  } finally {
    await w.close();
  }
}

/** The old `init patent-cited-by` file: the built-in's table, keyed on `pn`. */
async function ownCitedByFile(dir: string): Promise<string> {
  const file = join(dir, "mine.yaml");
  expect((await cli(["init", "patent-cited-by", "--name", "mine-cited-by", "--out", file])).code).toBe(0);
  writeFileSync(file, readFileSync(file, "utf8").replace("table: mine_cited_by", "table: patent_cited_by"));
  expect(readFileSync(file, "utf8")).toContain("key: [ pn ]");
  return file;
}

describe.each(WAREHOUSE_KINDS)("a table that cannot take a pipeline's rows (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "is refused (exit 2) before any ALTER or index: the table as it was, nothing spent, either order",
    async () => {
      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const dir = mkdtempSync(join(tmpdir(), "skillsync-fit-"));
      afterTest(() => rmSync(dir, { recursive: true, force: true }));
      const mine = await ownCitedByFile(dir);
      const patent = ["--param", "patent=US11234567B2"];

      const db = freshWarehouseUrl(kind);
      const own = await cli(["run", mine, ...patent, "--db", db], env);
      expect(own.code, own.err).toBe(0);
      const before = await shape(db);
      expect(before.primaryKeys).toContainEqual(["patent_cited_by", ["pn"]]);
      const credits = emulator.ledger().totalCredits;

      const builtin = await cli(["run", "patent-cited-by", ...patent, "--db", db], env);
      expect(builtin.code, builtin.err).toBe(2);
      expect(builtin.err).toContain(
        "table patent_cited_by is there and cannot take pipeline patent-cited-by's rows: its primary key (pn) has column(s) pn this pipeline does not write",
      );
      expect(builtin.err).toContain("records.table");
      expect(builtin.err).toContain("Nothing was changed");
      expect(await shape(db)).toEqual(before);
      expect(emulator.ledger().totalCredits).toBe(credits);

      // The other way round: the built-in's table is there, the file keyed on pn is refused.
      const other = freshWarehouseUrl(kind);
      expect((await cli(["run", "patent-cited-by", ...patent, "--db", other], env)).code).toBe(0);
      const made = await shape(other);
      const spent = emulator.ledger().totalCredits;
      const refused = await cli(["run", mine, ...patent, "--db", other], env);
      expect(refused.code, refused.err).toBe(2);
      expect(refused.err).toContain(`invalid pipeline file ${mine}`);
      expect(refused.err).toContain("its primary key (publication_number) has column(s) publication_number");
      expect(await shape(other)).toEqual(made);
      expect(emulator.ledger().totalCredits).toBe(spent);
    },
  );
});
