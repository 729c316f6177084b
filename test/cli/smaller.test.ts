import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fitCell } from "../../cli/output.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { tempDir } from "../helpers/temp-dir.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

const dir = () => tempDir("small");

describe("the smaller mistakes", () => {
  it("--version prints the package's version", async () => {
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as {
      version: string;
    };
    expect(r.out.trim()).toBe(pkg.version);
  });

  it("a CSV without #column never sends its header: one column is used (and said), several are asked for", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const d = dir();
    const two = join(d, "kw.csv");
    writeFileSync(two, "keyword,category\nusb hub,electronics\ndesk lamp,home\n");
    const db = freshWarehouseUrl("sqlite");
    const asked = await cli(["run", "marketplace-search", "--db", db, "--param", `keyword=@${two}`], env);
    expect(asked.code).toBe(2);
    expect(asked.err).toContain("columns keyword, category: name one with #column");
    expect(emulator.ledger().totalCalls).toBe(0);

    const one = join(d, "one.csv");
    writeFileSync(one, "keyword\nusb hub\ndesk lamp\n");
    const r = await cli(
      ["run", "marketplace-search", "--db", db, "--param", `keyword=@${one}`, "--json"],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.err).toContain('read as CSV, column "keyword"');
    expect(emulator.ledger().totalCalls).toBe(2);
    const sent = await cli([
      "sql",
      "select distinct keyword from marketplace_search_results order by 1",
      "--db",
      db,
      "--format",
      "csv",
    ]);
    expect(sent.out).toBe("keyword\ndesk lamp\nusb hub\n");
  });

  it("tables align by display width and mark cut cells", () => {
    expect(fitCell("東京", 6)).toBe("東京  ");
    expect(fitCell("abcdefgh", 5)).toBe("abcd…");
    expect(fitCell("東京大阪", 5)).toBe("東京…");
    expect(fitCell("東京大阪", 6)).toBe("東京… ");
  });

  it("sql --format json and table", async () => {
    const db = freshWarehouseUrl("sqlite");
    await cli(["migrate", "--db", db]);
    const json = await cli(["sql", "select 1 as n, '東京' as city", "--db", db, "--format", "json"]);
    expect(JSON.parse(json.out)).toEqual([{ n: 1, city: "東京" }]);
    const table = await cli(["sql", "select '東京' as city, 1 as n", "--db", db, "--format", "table"]);
    expect(table.out.split("\n")[2]).toBe("東京  1");
    const bad = await cli(["sql", "select 1", "--db", db, "--format", "xml"]);
    expect(bad.code).toBe(2);
  });
});

/** Whether a connection to the port on loopback is refused (nothing listens there). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED"));
  });
}

describe("an unreachable API", () => {
  it("stops dispatching after 3 connections in a row fail, with one line naming it", async () => {
    // A port below the ephemeral range, with nothing listening: a port freed by a server of our own
    // can be handed at once to another test's emulator (seen: 38 of 40 calls answered there).
    const port = 1;
    await expect(refused(port)).resolves.toBe(true);
    const url = `http://127.0.0.1:${port}`;
    const keywords = Array.from({ length: 40 }, (_, i) => ["--param", `keyword=k${i}`]).flat();
    const r = await cli(
      ["run", "marketplace-search", "--db", freshWarehouseUrl("sqlite"), ...keywords, "--concurrency", "2"],
      { SKILL_API_BASE_URL: url, SKILL_API_KEY: DEMO_KEY },
    );
    // The address is a setting (--base-url, SKILL_API_BASE_URL) that reaches nothing: exit 2.
    expect(r.code).toBe(2);
    const all = r.out + r.err;
    expect(all).toContain(`stopped: the API at ${url} is unreachable: connection refused`);
    expect(all.match(/is unreachable/g)?.length).toBe(2); // the progress note and the summary
    expect(all.split("\n").filter((l) => l.startsWith("failed:")).length).toBe(1);
    expect(all).toMatch(/errors [3-5]\b/);
  });
});
