import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

// `skillsync init SKILL` writes a starting pipeline file that `plan` reads as written and `run`
// loads rows with: typed from the catalog for a documented operation, the generic form otherwise.

const dir = mkdtempSync(join(tmpdir(), "skillsync-init-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rowCount(db: string, table: string): number {
  const conn = new Database(db, { readonly: true });
  try {
    return (conn.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  } finally {
    conn.close();
  }
}

const cases = [
  {
    skill: "patent-core-bibliography",
    table: "patent_core_bibliography",
    params: ["patent=US11234567B2", "patent=EP3000000A1"],
    key: "key: [ pn ]",
  },
  {
    skill: "websearch-patent-search",
    table: "websearch_patent_search",
    params: ["q=lidar"],
    key: "mode: append",
  },
  {
    // A built-in's name: the file takes its own (my-marketplace-search).
    skill: "marketplace-search",
    table: "my_marketplace_search",
    params: ["keyword=desk lamp"],
    key: "mode: append",
  },
  {
    skill: "vendorb-detection-patent-design",
    table: "vendorb_detection_patent_design",
    params: ["image_url=https://img.example.com/lamp.jpg", "query_mode=physical", "top_number=5"],
    key: "mode: append",
  },
  {
    skill: "vendora-product-tro-detection",
    table: "vendora_product_tro_detection",
    params: [
      "main_product_image=https://img.example.com/lamp.jpg",
      "main_product_image=https://img.example.com/mug.jpg",
    ],
    key: "path: results",
  },
  { skill: "acme-widget-stats", table: "acme_widget_stats", params: [], key: "inferColumns: true" },
];

describe("skillsync init", () => {
  it.each(cases)("writes a file for $skill that plan accepts and run loads rows with", async (c) => {
    const { emulator } = await emulatorWithClient({ genericSlugs: ["acme-widget-stats"] });
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const file = join(dir, `${c.skill}.yaml`);
    const init = await cli(["init", c.skill, "--out", file]);
    expect(init.code, init.err).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text.split("\n")[0]).toMatch(
      /^# yaml-language-server: \$schema=\S+schema\/pipeline\.schema\.json$/,
    );
    expect(text).toContain(`table: ${c.table}`);
    expect(text).toContain(c.key);

    const db = freshWarehouseUrl("sqlite");
    const params = c.params.flatMap((p) => ["--param", p]);
    const plan = await cli(["plan", file, ...params, "--db", db, "--json"]);
    expect(plan.code, plan.err).toBe(0);
    expect(JSON.parse(plan.out)).toMatchObject({ credits: expect.any(Number) });
    expect(emulator.ledger().totalCalls).toBe(0);

    const run = await cli(["run", file, ...params, "--db", db, "--json"], env);
    expect(run.code, run.err).toBe(0);
    expect(emulator.ledger().calls.map((call) => call.slug)).toContain(c.skill);
    expect(rowCount(db, c.table)).toBeGreaterThan(0);
  });

  it("types params from the contract: required, enums, defaults, bounds", async () => {
    const file = join(dir, "types.yaml");
    expect((await cli(["init", "websearch-patent-search", "--out", file])).code).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^ {2}q: \{ .*required: true, repeatable: true \}$/m);
    expect(text).toMatch(/^ {2}num: \{ .*type: integer, min: 10, max: 100, default: 10 \}$/m);
    expect(text).toMatch(/^ {2}sort: \{ .*enum: \[ new, old \] \}$/m);
    expect(text).toContain('q: "{{q}}"');
    expect(text).toContain('paginate: { member: page, maxPages: "{{pages}}" }');
  });

  it("writes <name>.yaml in the working folder by default", async () => {
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const before = process.cwd();
    process.chdir(cwd);
    try {
      const r = await cli(["init", "websearch-patent-search"]);
      expect(r.code, r.err).toBe(0);
      expect((await cli(["init", "marketplace-search", "--name", "desk-lamps"])).code).toBe(0);
    } finally {
      process.chdir(before);
    }
    expect(readFileSync(join(cwd, "websearch-patent-search.yaml"), "utf8")).toContain(
      "name: websearch-patent-search",
    );
    const named = readFileSync(join(cwd, "desk-lamps.yaml"), "utf8");
    expect(named).toContain("name: desk-lamps");
    expect(named).toContain("table: desk_lamps");
    expect(named).toContain("skill: marketplace-search");
  });

  // Issue 47: `init patent-cited-by` wrote a file with the built-in's name and table but another
  // key; runs of the two then altered each other's table.
  it("never shadows a built-in's name or table: my-<skill> by default, --name naming one refused", async () => {
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const before = process.cwd();
    process.chdir(cwd);
    let r: Awaited<ReturnType<typeof cli>>;
    let refused: Awaited<ReturnType<typeof cli>>[];
    try {
      r = await cli(["init", "patent-cited-by"]);
      refused = [
        await cli(["init", "patent-cited-by", "--name", "patent-cited-by"]),
        // Its table is a built-in's (patent_search_results), though the name is not.
        await cli(["init", "websearch-patent-search", "--name", "patent-search-results"]),
      ];
    } finally {
      process.chdir(before);
    }
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      "named it my-patent-cited-by (table my_patent_cited_by): patent-cited-by is a built-in pipeline's name",
    );
    const text = readFileSync(join(cwd, "my-patent-cited-by.yaml"), "utf8");
    expect(text).toContain("name: my-patent-cited-by");
    expect(text).toContain("table: my_patent_cited_by");
    expect(text).toContain("skill: patent-cited-by");
    expect(refused[0]!.code).toBe(2);
    expect(refused[0]!.err).toContain(
      "--name patent-cited-by: patent-cited-by is a built-in pipeline's name",
    );
    expect(refused[0]!.err).toContain("--name my-patent-cited-by");
    expect(refused[1]!.code).toBe(2);
    expect(refused[1]!.err).toContain("patent_search_results is a table or view of the built-in pipelines");
    expect(existsSync(join(cwd, "patent-cited-by.yaml"))).toBe(false);
    expect(existsSync(join(cwd, "patent-search-results.yaml"))).toBe(false);
  });

  it("without SKILL is a usage error naming `skillsync tools`", async () => {
    const r = await cli(["init"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("skillsync tools");
  });

  it("refuses to overwrite a file without --force, and overwrites it with", async () => {
    const file = join(dir, "taken.yaml");
    writeFileSync(file, "mine\n");
    const r = await cli(["init", "marketplace-search", "--out", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(file);
    expect(r.err).toContain("--force");
    expect(readFileSync(file, "utf8")).toBe("mine\n");

    const forced = await cli(["init", "marketplace-search", "--out", file, "--force"]);
    expect(forced.code, forced.err).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("skill: marketplace-search");
  });

  it("refuses a slug that is none, writing nothing", async () => {
    const file = join(dir, "bad.yaml");
    const r = await cli(["init", "Not A Slug", "--out", file]);
    expect(r.code).toBe(2);
    expect(existsSync(file)).toBe(false);
  });
});
