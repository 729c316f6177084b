import { describe, expect, it } from "vitest";
import { ValidationError } from "../../core/errors.js";
import { checkReadOnlySql, codeOnly } from "../../mcp/sql-guard.js";

const refused = (sql: string) => {
  try {
    checkReadOnlySql(sql);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).message;
  }
};

describe("the MCP query tool's first check", () => {
  it("lets one SELECT, WITH, VALUES or EXPLAIN statement through, with a trailing semicolon", () => {
    for (const sql of [
      "select 1",
      "  SELECT * FROM t WHERE a = 'x';  ",
      "with x as (select 1 as a) select a from x",
      "values (1, 2)",
      "explain select * from t",
      "(select 1) union (select 2)",
      "select 'delete; drop table t' as text, \"update\" from t -- ; insert\n",
      "select /* drop */ 1",
      "select $$ ; delete $$ as body",
      "select replace(name, 'a', 'b'), created_at, updated_at from t",
    ]) {
      expect(refused(sql), sql).toBeUndefined();
    }
  });

  it("refuses writes, other statements, several statements and side-effect functions", () => {
    expect(refused("delete from t")).toMatch(/starts with "delete"/);
    expect(refused("update t set a = 1")).toMatch(/only SELECT, WITH, VALUES and EXPLAIN/);
    expect(refused("pragma query_only = 0")).toMatch(/starts with "pragma"/);
    expect(refused("/* hi */ drop table t")).toMatch(/starts with "drop"/);
    expect(refused("select 1; delete from t")).toMatch(/more than one statement/);
    expect(refused("select 1;; ")).toMatch(/more than one statement/);
    expect(refused("with d as (delete from t returning *) select * from d")).toMatch(/uses "delete"/);
    expect(refused("select * into t2 from t")).toMatch(/uses "into"/);
    expect(refused("explain analyze delete from t")).toMatch(/uses "delete"/);
    expect(refused("select set_config('transaction_read_only', 'off', true)")).toMatch(/set_config/);
    expect(refused("select pg_read_file('/etc/passwd')")).toMatch(/pg_read_file/);
    expect(refused("   ")).toMatch(/is empty/);
  });

  it("blanks literals, quoted names and comments, including doubled quotes inside them", () => {
    expect(codeOnly("select 'it''s; x', \"a\"\"b\" -- c\nfrom t")).toBe("select  ,    from t");
    expect(codeOnly("select $tag$ a ; b $tag$, [x;y], `z;`")).toBe("select  ,  ,  ");
  });
});
