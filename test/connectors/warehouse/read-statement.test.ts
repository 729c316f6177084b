import { describe, expect, it } from "vitest";
import { POSTGRES_LEXICON } from "../../../connectors/warehouse/postgres/sql-lexicon.js";
import { checkReadStatement } from "../../../connectors/warehouse/read-only.js";
import { SQLITE_LEXICON } from "../../../connectors/warehouse/sqlite/sql-lexicon.js";
import { ValidationError } from "../../../core/errors.js";

// The first check of the one read-only path (every read: `skillsync sql`, the server's tables, a
// pipeline's input sql, Sheets pushes, the MCP query tool). The hostile corpus of
// test/reliability/read-only.test.ts runs it, and the databases behind it, end to end.

const LEXICONS = { sqlite: SQLITE_LEXICON, postgres: POSTGRES_LEXICON };

const refused = (sql: string, dialect: keyof typeof LEXICONS = "sqlite") => {
  try {
    checkReadStatement(sql, LEXICONS[dialect]);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).message;
  }
};

describe("checkReadStatement, the first check of every read", () => {
  it("lets one SELECT, WITH, VALUES or EXPLAIN statement through, with a trailing semicolon", () => {
    for (const sql of [
      "select 1",
      "  SELECT * FROM t WHERE a = 'x';  ",
      "with x as (select 1 as a) select a from x",
      "values (1, 2)",
      "explain select * from t",
      "(select 1) union (select 2)",
      "select 1;; ",
      // Keywords inside strings, quoted names and comments are not SQL.
      "select 'delete; drop table t' as text, \"update\" from t -- ; insert\n",
      "select 'it''s; x', \"a\"\"b\" -- c\nfrom t",
      "select /* drop */ 1",
      "select [x;y], `z;` from t",
      // Words that merely contain a refused one.
      "select replace(name, 'a', 'b'), created_at, updated_at, intotal from t",
    ]) {
      expect(refused(sql), sql).toBeUndefined();
    }
    for (const sql of ["select $$ ; delete $$ as body", "select $tag$ a ; b $tag$ as body"]) {
      expect(refused(sql, "postgres"), sql).toBeUndefined();
    }
  });

  it("refuses writes, other statements, several statements and side-effect functions, saying why", () => {
    expect(refused("delete from t")).toMatch(/must be a read.*"DELETE" is refused/);
    expect(refused("update t set a = 1")).toMatch(
      /must be a read \(SELECT, WITH, VALUES, TABLE or EXPLAIN\)/,
    );
    expect(refused("/* hi */ drop table t")).toMatch(/"DROP" is refused/);
    expect(refused("pragma query_only = 0")).toMatch(/PRAGMA query_only is refused/);
    expect(refused("select 1; delete from t")).toMatch(/exactly one statement/);
    expect(refused("select * into t2 from t", "postgres")).toMatch(/INTO is refused/);
    expect(refused("explain analyze delete from t", "postgres")).toMatch(
      /EXPLAIN ANALYZE runs the statement/,
    );
    expect(refused("select set_config('transaction_read_only', 'off', true)", "postgres")).toMatch(
      /set_config\(\) is refused/,
    );
    expect(refused("select pg_read_file('/etc/passwd')", "postgres")).toMatch(/pg_read_file\(\) is refused/);
    expect(refused("select 'open")).toMatch(/unterminated/);
    expect(refused("   ")).toMatch(/is empty/);
    // A dollar quote is Postgres's: on SQLite the `;` inside it ends the statement.
    expect(refused("select $$ ; delete $$ as body", "sqlite")).toMatch(/exactly one statement/);
  });
});
