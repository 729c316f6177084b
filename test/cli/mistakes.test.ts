import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

const keywordPipeline = `name: kw
skill: marketplace-search
params:
  seed: { required: true }
request:
  keyword: "{{seed}}"
records:
  path: products
  table: kw_results
  mode: append
  columns:
    asin: text
    price: { from: extractedPrice, type: number }
`;

describe("mistakes caught before they cost credits", () => {
  it("an integer param defaulting to text is exit 2 naming it, nothing sent", async () => {
    const { emulator } = await emulatorWithClient();
    const file = writePipelineFile(
      keywordPipeline
        .replace(
          "seed: { required: true }",
          "seed: { required: true }\n  pages: { type: integer, default: two }",
        )
        .replace("records:", 'paginate: { member: page, maxPages: "{{pages}}" }\nrecords:'),
    );
    const r = await cli(["run", file, "--db", freshWarehouseUrl("sqlite"), "--param", "seed=usb"], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.code).toBe(2);
    expect(r.err).toContain("default of param pages");
    expect(r.err).not.toMatch(/Symbol/);
    expect(emulator.ledger().totalCalls).toBe(0);
  });

  it("a misspelt template variable is exit 2 and sends nothing", async () => {
    const { emulator } = await emulatorWithClient();
    const file = writePipelineFile(keywordPipeline.replace("{{seed}}", "{{sed}}"));
    const r = await cli(["run", file, "--db", freshWarehouseUrl("sqlite"), "--param", "seed=usb"], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.code).toBe(2);
    expect(r.err).toContain(file);
    expect(r.err).toMatch(
      /request\.keyword: \{\{sed\}\} is not defined \(did you mean "seed"\?\).*\(line 6\)/,
    );
    expect(emulator.ledger().totalCalls).toBe(0);
  });
});

describe("mistakes only the answers show are visible", () => {
  const env = (url: string) => ({ SKILL_API_BASE_URL: url, SKILL_API_KEY: DEMO_KEY });

  it("an answer without the records.path member fails the call; the fixed file reloads it for 0 credits", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const file = writePipelineFile(keywordPipeline.replace("path: products", "path: items"));
    const r = await cli(["run", file, "--db", db, "--param", "seed=usb"], env(emulator.url));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /the answer has no member `items` \(records\.path: items\); it has .*`products` \(a list\)/,
    );
    expect(emulator.ledger().totalCalls).toBe(1);
    writeFileSync(file, readFileSync(file, "utf8").replace("path: items", "path: products"));
    const fixed = await cli(["run", file, "--db", db, "--param", "seed=usb", "--json"], env(emulator.url));
    expect(fixed.code).toBe(0);
    const summary = JSON.parse(fixed.out) as { counters: { rowsWritten: number; creditsSpent: number } };
    expect(summary.counters.rowsWritten).toBeGreaterThan(0);
    expect(summary.counters.creditsSpent).toBe(0);
    expect(emulator.ledger().totalCalls).toBe(1);
  });

  it("warns of a column no record fills and of members no column reads; --strict fails the run", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const file = writePipelineFile(`${keywordPipeline}    cpc: { from: costPerClick, type: number }\n`);
    const r = await cli(["run", file, "--db", db, "--param", "seed=usb"], env(emulator.url));
    expect(r.code).toBe(0);
    expect(r.out).toContain("warning: kw: no record has the member of column(s) cpc (from costPerClick)");
    expect(r.out).toMatch(/warning: kw: record member\(s\) no column reads: .*rating.* \(kept in extra\)/);
    expect(r.out).toMatch(/empty columns 1 · unmapped members \d+/);
    const strict = await cli(["run", file, "--db", db, "--param", "seed=usb", "--strict"], env(emulator.url));
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/: failed/);
    const runs = await cli(["runs", "--db", db, "--json"]);
    const [last] = JSON.parse(runs.out) as {
      status: string;
      mapping: { emptyColumns: number };
      warnings: string[];
    }[];
    expect(last).toMatchObject({ status: "failed", mapping: { emptyColumns: 1 } });
    expect(last?.warnings.join("\n")).toContain("cpc (from costPerClick)");
  });

  it("counts and shows rejected records (summary, runs); strict: true in the file fails the run", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const file = writePipelineFile(keywordPipeline.replace("type: number", "type: integer"));
    const r = await cli(["run", file, "--db", db, "--param", "seed=usb", "--json"], env(emulator.url));
    expect(r.code).toBe(5);
    const summary = JSON.parse(r.out) as { counters: { rowsRejected: number }; warnings: string[] };
    expect(summary.counters.rowsRejected).toBeGreaterThan(0);
    expect(summary.warnings.join("\n")).toMatch(/kw: \d+ record\(s\) rejected .*price/);
    const runs = await cli(["runs", "--db", db]);
    expect(runs.out).toMatch(/rejected/);
    writeFileSync(file, `${readFileSync(file, "utf8")}strict: true\n`);
    const strict = await cli(["run", file, "--db", db, "--param", "seed=usb"], env(emulator.url));
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/· rejected [1-9]/);
  });
});
