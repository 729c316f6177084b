import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

// What docs/pipeline-files.md ("Operations beyond the documented 23") says of the catalog's
// operations the contract does not detail: reached by slug, checked only as a JSON object before
// sending, priced at 1 credit a call unless a price file says otherwise, refused by the API when
// the slug is not one of its operations.

const dir = mkdtempSync(join(tmpdir(), "skillsync-slugs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pipeline file of one's own for `slug`, one call per `term`, its columns inferred. */
function pipelineFile(slug: string): string {
  const file = join(dir, `${slug}.yaml`);
  writeFileSync(
    file,
    `name: ${slug}-terms
skill: ${slug}
params:
  term: { repeatable: true, required: true }
input: { name: term, from: { param: term } }
request: { keyword: "{{term}}", options: { depth: 2, flags: [a, b] } }
records: { path: data, table: ${slug.replaceAll("-", "_")}, key: [keyword], inferColumns: true }
`,
  );
  return file;
}

describe("operations the contract does not detail, by slug", () => {
  it("skillsync call sends any members to them, where a documented operation refuses an unknown one", async () => {
    const { emulator } = await emulatorWithClient({ genericSlugs: true });
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const body = JSON.stringify({ keyword: "tea", anything: { nested: [1, true] } });
    const r = await cli(["call", "marketplace-keyword-research", "--body", body], env);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).data.length).toBeGreaterThan(0);
    expect(emulator.ledger().calls.map((c) => c.slug)).toEqual(["marketplace-keyword-research"]);

    const refused = [
      ["call", "websearch-patent-search", "--body", '{"q":"tea","anything":1}'],
      ["call", "marketplace-keyword-research", "--body", "[1]"],
      ["call", "Keyword Research", "--body", "{}"],
    ];
    for (const args of refused) expect((await cli(args, env)).code, args.join(" ")).toBe(2);
    expect(emulator.ledger().totalCalls).toBe(1);
  });

  it("a pipeline file plans them at 1 credit a call, or the price file's", async () => {
    const file = pipelineFile("acme-keyword-stats");
    const args = [
      "plan",
      file,
      "--param",
      "term=a",
      "--param",
      "term=b",
      "--db",
      freshWarehouseUrl("sqlite"),
    ];
    const plain = await cli([...args, "--json"]);
    expect(plain.code, plain.err).toBe(0);
    expect(JSON.parse(plain.out)).toMatchObject({ credits: 2 });
    const prices = join(dir, "prices.yaml");
    writeFileSync(prices, "acme-keyword-stats: 3\n");
    const priced = await cli([...args, "--prices", prices, "--json"]);
    expect(JSON.parse(priced.out)).toMatchObject({ credits: 6 });
  });

  it("a slug the API does not have passes the checks, and its calls are refused (404), unbilled", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const file = pipelineFile("acme-no-such-operation");
    const r = await cli(
      ["run", file, "--param", "term=a", "--db", freshWarehouseUrl("sqlite"), "--json"],
      env,
    );
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.out) as { status: string; counters: { creditsSpent: number } };
    expect(summary).toMatchObject({ status: "failed", counters: { creditsSpent: 0 } });
    expect(r.err + r.out).toContain("the service refused the request (HTTP 404)");
    expect(emulator.ledger().totalCredits).toBe(0);
  });
});
