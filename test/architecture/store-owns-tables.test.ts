import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PRODUCT_FOLDERS, typescriptBelow } from "./source-files.js";

// store/ is the only code that reads or writes the toolkit's own skillsync_* tables (migrations
// create them). A query that names one anywhere else belongs in store/.
const SOURCE = PRODUCT_FOLDERS.filter((f) => f !== "store" && f !== "migrations");
const QUERY =
  /\b(selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin)\(\s*["'`]skillsync_|\b(from|into|update|join)\s+skillsync_/i;

/** Lines of code that query a toolkit table (comments and JSDoc examples left out). */
function tableQueries(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => QUERY.test(line));
}

describe("the toolkit's own tables", () => {
  it("are queried only from store/", () => {
    const outside = SOURCE.flatMap(typescriptBelow).flatMap((file) =>
      tableQueries(readFileSync(file, "utf8")).map((line) => `${file}: ${line.trim()}`),
    );
    expect(outside).toEqual([]);
  });

  it("the check sees Kysely calls and SQL text, and leaves comments alone", () => {
    expect(tableQueries('  await w.db.selectFrom("skillsync_runs").selectAll()')).toHaveLength(1);
    expect(tableQueries("  sql`update skillsync_budgets set reserved = 0`")).toHaveLength(1);
    expect(tableQueries(' * await w.db.selectFrom("skillsync_runs")\n  // from skillsync_calls')).toEqual([]);
    expect(tableQueries('  if (name.startsWith("skillsync_")) return')).toEqual([]);
  });
});
