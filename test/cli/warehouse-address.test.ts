import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";
import { PG_URL } from "../helpers/warehouses.js";

const dir = () => tempDir("addr");

describe("warehouse addressing", () => {
  it("read-only commands never create a warehouse (exit 2, the path, how to make one)", async () => {
    const missing = join(dir(), "typo", "warehuose.db");
    for (const args of [
      ["sql", "select 1", "--db", missing],
      ["tables", "--db", missing],
      ["runs", "--db", missing],
      ["budget", "--db", missing],
    ]) {
      const r = await cli(args);
      expect(r.code, args[0]).toBe(2);
      expect(r.err, args[0]).toContain(
        `no warehouse at ${missing} — run a pipeline or \`skillsync migrate\``,
      );
    }
    expect(existsSync(join(missing, ".."))).toBe(false);
    const set = await cli(["budget", "--db", missing, "--daily", "5"]);
    expect(set.code).toBe(0);
    expect(existsSync(missing)).toBe(true);
  });

  it("a file that is not a database is a configuration error naming it", async () => {
    const csv = join(dir(), "kw.csv");
    writeFileSync(csv, "keyword,category\nusb hub,electronics\n".repeat(50));
    for (const args of [
      ["sql", "select 1", "--db", csv],
      ["migrate", "--db", csv],
    ]) {
      const r = await cli(args);
      expect(r.code, args[0]).toBe(2);
      expect(r.err).toContain(`${csv} is not a SQLite database`);
    }
  });

  it.skipIf(!PG_URL)("a missing Postgres database is exit 2, named without its password", async () => {
    const u = new URL(PG_URL!);
    u.pathname = "/no_such_db_skillsync";
    u.password = "s3cret-pw";
    for (const args of [
      ["tables", "--db", u.toString()],
      ["migrate", "--db", `${u.toString()}?schema=x1`],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err).toMatch(
        /no database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\/no_such_db_skillsync/,
      );
      expect(r.err).not.toContain("s3cret-pw");
    }
  });
});
