import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

// Issue 32 §1: a run that lost records is loud (outcome `warnings`, exit 5) unless rejects are
// accepted; a column that can never be filled is refused when the file is read.

// `title` typed number: every product's title is text, so every record is rejected.
const rejecting = (extra = "") =>
  writePipelineFile(`name: loud-search
skill: marketplace-search
params:
  keyword: { required: true }
request:
  keyword: "{{keyword}}"
${extra}records:
  path: products
  table: loud_results
  key: [asin]
  columns:
    asin: text
    title: number
`);

async function run(args: string[], db: string) {
  const { emulator } = await emulatorWithClient();
  const r = await cli(["run", ...args, "--db", db], {
    SKILL_API_BASE_URL: emulator.url,
    SKILL_API_KEY: DEMO_KEY,
  });
  return { ...r, emulator };
}

async function runStatus(db: string): Promise<string> {
  const w = await openWarehouse(db);
  try {
    const rows = await w.db.selectFrom("skillsync_runs").select("status").execute();
    return rows.map((r) => String(r.status)).join(",");
  } finally {
    await w.close();
  }
}

describe.each(WAREHOUSE_KINDS)("loud outcomes (%s)", (kind) => {
  it.skipIf(unavailable(kind))("rejected records end the run `warnings`, exit 5", async () => {
    const db = freshWarehouseUrl(kind);
    const r = await run([rejecting(), "--param", "keyword=lamp"], db);
    expect(r.out).toMatch(/: warnings/);
    expect(r.out).toMatch(/record\(s\) rejected/);
    expect(r.out).toMatch(/rejects: allow .* --allow-rejects/);
    expect(r.code).toBe(5);
    expect(await runStatus(db)).toBe("warnings");
  });

  it.skipIf(unavailable(kind))(
    "`rejects: allow` in the file accepts them: exit 0, warning still printed",
    async () => {
      const db = freshWarehouseUrl(kind);
      const r = await run([rejecting("rejects: allow\n"), "--param", "keyword=lamp"], db);
      expect(r.out).toMatch(/: succeeded/);
      expect(r.out).toMatch(/warning: .*rejected/);
      expect(r.code).toBe(0);
      expect(await runStatus(db)).toBe("succeeded");
    },
  );
});

describe("loud outcomes: flags", () => {
  it("--allow-rejects accepts them: exit 0", async () => {
    const db = freshWarehouseUrl("sqlite");
    const r = await run([rejecting(), "--param", "keyword=lamp", "--allow-rejects"], db);
    expect(r.code).toBe(0);
    expect(await runStatus(db)).toBe("succeeded");
  });

  it("--strict still fails on them: exit 1", async () => {
    const db = freshWarehouseUrl("sqlite");
    const r = await run([rejecting(), "--param", "keyword=lamp", "--strict"], db);
    expect(r.code).toBe(1);
    expect(await runStatus(db)).toBe("failed");
  });

  it("--json carries the status", async () => {
    const r = await run([rejecting(), "--param", "keyword=lamp", "--json"], freshWarehouseUrl("sqlite"));
    expect(JSON.parse(r.out).status).toBe("warnings");
    expect(r.code).toBe(5);
  });
});

describe("columns that can never be filled are refused at read (exit 2, nothing sent)", () => {
  const withColumn = (column: string) =>
    writePipelineFile(`name: never-filled
skill: marketplace-search
params:
  keyword: { required: true }
request:
  keyword: "{{keyword}}"
records:
  path: products
  table: never_filled
  key: [asin]
  columns:
    asin: text
${column}
`);

  it.each([
    [
      "$request.nope",
      "    nope: { from: $request.nope }",
      /\$request\.nope: the request sets no member "nope".*\(line 13\)/s,
    ],
    [
      "$param.nope",
      "    nope: { from: $param.nope }",
      /\$param\.nope: this pipeline declares no param "nope".*\(line 13\)/s,
    ],
    ["a near miss", "    kw: { from: $request.keywrd }", /did you mean "keyword"/],
    [
      "an unknown $name",
      "    when: { from: $observed }",
      /\$observed reads nothing.*did you mean "observedAt"/s,
    ],
  ])("%s", async (_name, column, message) => {
    const db = freshWarehouseUrl("sqlite");
    const r = await run([withColumn(column), "--param", "keyword=lamp"], db);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.emulator.ledger().totalCalls).toBe(0);
  });

  it("$data in a report pipeline", async () => {
    const builtin = readFileSync(new URL("../../pipelines/ads-sp-audience.yaml", import.meta.url), "utf8");
    const file = writePipelineFile(
      builtin.replace("  columns:\n", "  columns:\n    total: { from: $data.total }\n"),
    );
    const r = await cli(["plan", file, "--db", freshWarehouseUrl("sqlite")]);
    expect(r.err).toMatch(/\$data\.total: a report's rows come from its CSV parts/);
    expect(r.code).toBe(2);
  });
});

describe("$data.<member>: a member of the answer's data beside the records", () => {
  it("is put on each of the answer's rows", async () => {
    const db = freshWarehouseUrl("sqlite");
    const file = writePipelineFile(`name: copyright-matches
skill: vendorb-copyright-detection
params:
  image: { required: true }
request:
  imageUrl: "{{image}}"
  topNumber: 10
  enableRadar: false
records:
  path: data
  table: copyright_matches
  mode: append
  columns:
    detect_id: { from: $data.detectId }
    total: { from: $data.total, type: integer }
    similarity: number
    missing: { from: $data.nope }
`);
    const r = await run([file, "--param", "image=https://img.example.com/a.jpg"], db);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/no record has the member of column\(s\) missing \(from \$data\.nope\)/);
    const w = await openWarehouse(db);
    try {
      const rows = await w.db.selectFrom("copyright_matches").select(["detect_id", "total"]).execute();
      expect(rows.length).toBeGreaterThan(0);
      const ids = new Set(rows.map((x) => x.detect_id));
      expect(ids.size).toBe(1);
      expect(String([...ids][0])).toMatch(/\S/);
    } finally {
      await w.close();
    }
  });
});
