import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_KEY, startEmulator } from "../../emulator/index.js";
import { cli } from "../helpers/cli.js";
import { closedPort } from "../helpers/closed-port.js";
import { publishedPatents } from "../helpers/legal-status.js";

const D = "2026-11-08";

/**
 * Bad watch input (issue 46): exit 2 naming what and where, and nothing written. One warehouse,
 * loaded once, serves every case: each case counts the watch tables' rows before and after.
 */
describe("watch add mistakes", () => {
  let dir = "";
  let db = "";
  let patents: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skillsync-watch-mistakes-"));
    db = join(dir, "warehouse.db");
    patents = publishedPatents(6, D);
    // Started and stopped here, not with afterTest: that would stop it after the first test only.
    const emulator = await startEmulator({ port: 0, host: "127.0.0.1", date: D });
    try {
      const r = await cli(
        ["run", "patent-legal-status", "--param", `patent=${patents.join(",")}`, "--db", db, "--json"],
        { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY },
      );
      expect(r.code, r.err).toBe(0);
    } finally {
      await emulator.stop();
    }
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Rows of the watch tables: what a refused `watch add` must leave as it was. */
  const counts = () => {
    const c = new Database(db, { readonly: true });
    try {
      const n = (t: string) => (c.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n;
      return {
        watches: n("skillsync_watches"),
        keys: n("skillsync_watch_keys"),
        alerts: n("skillsync_alerts"),
      };
    } finally {
      c.close();
    }
  };

  /** `watch add` that must be refused: exit 2, every expected fragment on stderr, nothing written. */
  const refused = async (args: string[], ...expected: (string | RegExp)[]) => {
    const before = counts();
    const r = await cli(["watch", "add", ...args, "--db", db]);
    expect(r.code, r.err + r.out).toBe(2);
    for (const e of expected) expect(r.err).toMatch(e);
    expect(counts()).toEqual(before);
    return r;
  };

  const add = (name: string, ...more: string[]) => [
    name,
    "--table",
    "patent_legal_status",
    "--keys",
    patents.slice(0, 2).join(","),
    ...more,
  ];

  it("an unknown table: its name, a did-you-mean and the history tables there", async () => {
    await refused(
      ["s1", "--table", "patent_legal_statuses", "--keys", patents[0]!],
      /table: "patent_legal_statuses" is neither a table that keeps history nor a change view/,
      /did you mean "patent_legal_status"\?/,
      /history tables here: patent_legal_status/,
    );
  });

  it("an unknown --column: its name, a did-you-mean and the table's columns", async () => {
    await refused(
      add("s2", "--column", "legal_statuss"),
      /columns\[0\]: "legal_statuss" is not a column or child table of patent_legal_status/,
      /did you mean "legal_status"\?/,
    );
  });

  it("--fell-by on a text column cannot apply", async () => {
    await refused(
      add("s3", "--column", "legal_status", "--fell-by", "10%"),
      /when\.fell_by: cannot apply: legal_status is not numeric/,
    );
    // Every column of patent_legal_status is text: without --column the condition still cannot apply.
    await refused(
      add("s3", "--rose-by", "5"),
      /when\.rose_by: cannot apply: patent_legal_status has no numeric column/,
    );
  });

  it("malformed keys: an empty one, one holding a line break, a file naming none", async () => {
    await refused(
      ["s4", "--table", "patent_legal_status", "--keys", `${patents[0]},,${patents[1]}`],
      /keys\.list\[1\]: key "" is empty/,
    );
    await refused(
      ["s4", "--table", "patent_legal_status", "--keys", `${patents[0]},US1\nUS2`],
      /keys\.list\[1\]: key "US1\\nUS2" holds a line break or a NUL/,
    );
    const empty = join(dir, "none.txt");
    writeFileSync(empty, "# nothing here\n\n");
    await refused(
      ["s4", "--table", "patent_legal_status", "--keys", `@${empty}`],
      /keys\.file: names no key/,
    );
  });

  it("--keys and --keys-sql together", async () => {
    await refused(
      [...add("s5"), "--keys-sql", "select publication_number from patent_legal_status"],
      /give --keys or --keys-sql, not both/,
    );
  });

  it("a bad name, and a name already taken", async () => {
    await refused(add("Bad Name!"), /name: "Bad Name!" must be 1 to 63 of a-z, 0-9, _ and -/);
    const first = await cli(["watch", "add", ...add("taken"), "--db", db]);
    expect(first.code, first.err).toBe(0);
    await refused(
      ["taken", "--table", "patent_legal_status", "--keys", patents.slice(2).join(",")],
      /a watch named "taken" already exists: remove it first \(skillsync watch rm taken\)/,
    );
    // The first watch keeps its own keys: the refused one added none.
    const c = new Database(db, { readonly: true });
    const keys = c.prepare("select count(*) as n from skillsync_watch_keys").get() as { n: number };
    c.close();
    expect(keys.n).toBe(2);
    expect((await cli(["watch", "rm", "taken", "--db", db])).code).toBe(0);
  });

  it("--digest weekly names the flag and the choices", async () => {
    await refused(
      add("s6", "--digest", "weekly"),
      /--digest: not an allowed value; use one of: load, day, none/,
    );
  });

  it("a watch file with an unknown member: its path, line and a did-you-mean", async () => {
    const cwd = process.cwd();
    const home = join(dir, "project");
    mkdirSync(join(home, "watches"), { recursive: true });
    writeFileSync(
      join(home, "watches", "lapsed.yaml"),
      `table: patent_legal_status\nkeys:\n  list: [${patents[0]}]\nwhen:\n  to: Inactive\nnotfy:\n  digest: none\n`,
    );
    process.chdir(home);
    try {
      await refused(["lapsed"], /watches\/lapsed\.yaml/, /notfy/, /did you mean "notify"\?/, /\(line 6\)/);
    } finally {
      process.chdir(cwd);
    }
  });

  it("an SMTP server that cannot be reached at --email: a warning, the watch made (the outbox retries)", async () => {
    const port = await closedPort();
    const before = counts();
    const r = await cli(["watch", "add", ...add("mailed", "--email", "ops@example.com"), "--db", db], {
      SKILLSYNC_SMTP_URL: `smtp://user:smtp-secret-pass@127.0.0.1:${port}`,
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("watch mailed made on patent_legal_status (2 key(s))");
    expect(r.err).toMatch(/warning: the SMTP server \(SKILLSYNC_SMTP_URL\) cannot be reached now/);
    expect(r.err).toContain("retried");
    expect(r.err + r.out).not.toContain("smtp-secret-pass");
    expect(counts()).toEqual({ ...before, watches: before.watches + 1, keys: before.keys + 2 });
  }, 30_000);
});
