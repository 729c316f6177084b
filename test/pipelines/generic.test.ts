import { join } from "node:path";
import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { emulatorOptionsFromFlags } from "../../cli/commands/emulator.js";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { genericSlugData } from "../../emulator/generic.js";
import { builtinPipelineDir, loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines, type SkillCaller } from "../../engine/run/runner.js";
import { PROBE_SLUG } from "../../schema/catalog.js";
import { count, pipelineFrom, rows } from "../engine/fixtures.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const example = () => loadPipeline(join(builtinPipelineDir(), "examples", "generic-keyword-research.yaml"));

/** Column name → SQL type as the warehouse reports it. */
async function columns(w: Warehouse, table: string): Promise<Record<string, string>> {
  const r =
    w.adapter.dialect === "sqlite"
      ? await sql<{ name: string; type: string }>`select name, type from pragma_table_info(${table})`.execute(
          w.db,
        )
      : await sql<{ name: string; type: string }>`
          select column_name as name, data_type as type from information_schema.columns
          where table_name = ${table} and table_schema = current_schema()`.execute(w.db);
  return Object.fromEntries(r.rows.map((c) => [c.name, c.type.toLowerCase()]));
}

/** A Skill API stand-in answering each call with the `data` given for its `id` member. */
function scripted(answers: Record<string, unknown>): SkillCaller {
  return {
    prepare: (slug, body) => ({ slug, body: body as Record<string, unknown> }),
    send: async (p) => ({
      data: answers[String(p.body["id"])],
      traceId: null,
      status: 200,
      attempts: 1,
      elapsedMs: 1,
    }),
  };
}

const widgetYaml = (extra = "") => `name: widget-stats
skill: acme-widget-stats
params:
  id: { repeatable: true, required: true }
input: { name: id, from: { param: id } }
request: { id: "{{id}}" }
freshness: 0
records:
  path: data
  table: widget_stats
  key: [id]
  inferColumns: true
${extra}
  children:
    - { path: parts, table: widget_parts }
`;

const TYPES = {
  sqlite: {
    integer: "integer",
    number: "real",
    boolean: "integer",
    date: "text",
    timestamp: "text",
    json: "text",
  },
  postgres: {
    integer: "bigint",
    number: "double precision",
    boolean: "boolean",
    date: "date",
    timestamp: "timestamp with time zone",
    json: "jsonb",
  },
} as const;

describe.each(WAREHOUSE_KINDS)("generic pipelines with inferred columns on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });
    const t = TYPES[kind];

    it("runs the example against an undocumented slug and gains columns when the data gains members", async () => {
      const { emulator, client } = await emulatorWithClient({
        genericSlugs: ["marketplace-keyword-research"],
      });
      const first = await runPipelines({
        warehouse: w,
        client,
        pipelines: [example()],
        params: { keyword: ["green tea"], pages: ["2"] },
      });
      expect(first.status).toBe("succeeded");
      const total = genericSlugData("marketplace-keyword-research", { keyword: "green tea" })[
        "total"
      ] as number;
      expect(await count(w, "keyword_research")).toBe(Math.min(total, 20));
      const cols = await columns(w, "keyword_research");
      expect(cols).toMatchObject({
        keyword: "text",
        seed_keyword: "text",
        rank: t.integer,
        search_volume: t.integer,
        cpc: t.number,
        competition: "text",
        branded: t.boolean,
        first_seen: t.date,
        monthly_volumes: t.json,
        source: t.json,
      });
      expect(cols).not.toHaveProperty("updated_at");

      // A user's question, answered from typed columns: the biggest unbranded keywords first seen since 2022.
      const top = await rows<{ keyword: string; search_volume: number; cpc: number }>(
        w,
        `select keyword, search_volume, cpc from keyword_research
         where branded = ${kind === "sqlite" ? 0 : "false"} and first_seen >= '2022-01-01'
         order by search_volume desc limit 3`,
      );
      expect(top.length).toBeGreaterThan(0);
      expect(typeof top[0]!.search_volume).toBe("number");
      const [nothingLeft] = await rows<{ n: number }>(
        w,
        "select count(*) as n from keyword_research where extra is not null",
      );
      expect(Number(nothingLeft!.n)).toBe(0);

      // The same keywords with `detail`: three more members, so three more columns; nothing dropped.
      const second = await runPipelines({
        warehouse: w,
        client,
        pipelines: [example()],
        params: { keyword: ["green tea"], pages: ["2"], detail: ["true"] },
      });
      expect(second.status).toBe("succeeded");
      const after = await columns(w, "keyword_research");
      expect(after).toMatchObject({
        ...cols,
        updated_at: t.timestamp,
        seasonality: t.number,
        intent: "text",
      });
      expect(await count(w, "keyword_research")).toBe(Math.min(total, 20));
      expect(await count(w, "keyword_research", "intent is not null and updated_at is not null")).toBe(
        Math.min(total, 20),
      );
      expect(emulator.ledger().calls.every((c) => c.slug === "marketplace-keyword-research")).toBe(true);
    });

    it("adds each new column once when many responses bring it at the same time", async () => {
      const { client } = await emulatorWithClient({ genericSlugs: true });
      const keywords = ["oolong", "matcha", "rooibos", "sencha", "earl grey", "chai"];
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: [example()],
        params: { keyword: keywords, pages: ["3"], detail: ["1"] },
        concurrency: 8,
      });
      expect(s.status).toBe("succeeded");
      expect(s.counters.callsFailed).toBe(0);
      const expected = keywords.reduce(
        (n, k) => n + (genericSlugData("marketplace-keyword-research", { keyword: k })["total"] as number),
        0,
      );
      expect(await count(w, "keyword_research")).toBe(expected);
      expect(await count(w, "keyword_research", "intent is not null")).toBe(expected);
    });

    it("keeps values that do not fit their column in extra, across runs, and infers child columns too", async () => {
      const p = pipelineFrom(widgetYaml());
      const client = scripted({
        a: {
          data: [
            {
              id: "a",
              n: 1,
              flag: true,
              seen: "2024-01-02",
              note: null,
              "3d": 5,
              fooBar: 1,
              parts: [{ partNo: "P1", weight: 2.5 }, "loose"],
            },
          ],
        },
        b: {
          data: [
            { id: "b1", n: 1.5, flag: false, seen: "soon", note: "now text", fooBar: 2, foo_bar: 3 },
            { id: "b2", n: 7, flag: "yes", parts: [{ partNo: "P2", weight: 3, madeIn: "DE" }] },
          ],
        },
      });
      await runPipelines({ warehouse: w, client, pipelines: [p], params: { id: ["a"] } });
      const cols = await columns(w, "widget_stats");
      expect(cols).toMatchObject({ id: "text", n: t.integer, flag: t.boolean, seen: t.date, _3d: t.integer });
      // A member that was only null has no column yet.
      expect(cols).not.toHaveProperty("note");

      // A second run reads the columns back from the warehouse, as another process would.
      await runPipelines({ warehouse: w, client, pipelines: [p], params: { id: ["b"] } });
      const got = await rows<Record<string, unknown>>(
        w,
        "select id, n, flag, seen, note, foo_bar, extra from widget_stats order by id",
      );
      const bool = (b: boolean) => (kind === "sqlite" ? (b ? 1 : 0) : b);
      const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
      expect(got.map((r) => ({ ...r, extra: json(r["extra"]) }))).toEqual([
        { id: "a", n: 1, flag: bool(true), seen: "2024-01-02", note: null, foo_bar: 1, extra: null },
        // 1.5 in an integer column and "soon" in a date column stay in extra; foo_bar's name was taken by fooBar.
        {
          id: "b1",
          n: null,
          flag: bool(false),
          seen: null,
          note: "now text",
          foo_bar: 2,
          extra: { n: 1.5, seen: "soon", foo_bar: 3 },
        },
        { id: "b2", n: 7, flag: null, seen: null, note: null, foo_bar: null, extra: { flag: "yes" } },
      ]);
      expect(await columns(w, "widget_stats")).toMatchObject({ n: t.integer, note: "text" });

      const parts = await rows<Record<string, unknown>>(
        w,
        "select id, position, value, part_no, weight, made_in from widget_parts order by id, position",
      );
      expect(parts).toEqual([
        { id: "a", position: 1, value: null, part_no: "P1", weight: 2.5, made_in: null },
        { id: "a", position: 2, value: "loose", part_no: null, weight: null, made_in: null },
        { id: "b2", position: 1, value: null, part_no: "P2", weight: 3, made_in: "DE" },
      ]);
      expect((await columns(w, "widget_parts"))["weight"]).toBe(t.number);
    });

    it("with extra: false, misfits are dropped and no staging column is written", async () => {
      const p = pipelineFrom(widgetYaml("  extra: false"));
      const client = scripted({ a: { data: [{ id: "a", n: 1 }] }, b: { data: [{ id: "b", n: "many" }] } });
      await runPipelines({ warehouse: w, client, pipelines: [p], params: { id: ["a"] } });
      await runPipelines({ warehouse: w, client, pipelines: [p], params: { id: ["b"] } });
      const cols = Object.keys(await columns(w, "widget_stats"));
      expect(cols).not.toContain("extra");
      expect(cols.some((c) => c.startsWith("__"))).toBe(false);
      expect(await rows(w, "select id, n from widget_stats order by id")).toEqual([
        { id: "a", n: 1 },
        { id: "b", n: null },
      ]);
    });
  });
});

describe("the emulator and undocumented slugs", () => {
  it("answers 404 unless told to serve them, then serves only the listed ones", async () => {
    const call = (url: string, slug: string) =>
      fetch(`${url}/api/skill-api/v1/skills/${slug}/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ keyword: "tea" }),
      });
    const plain = await emulatorWithClient();
    const refused = await call(plain.emulator.url, "marketplace-keyword-research");
    expect(refused.status).toBe(404);
    // The 404 names the flag that would answer it.
    expect(((await refused.json()) as { msg: string }).msg).toBe(
      'no documented operation with slug "marketplace-keyword-research"; to answer it with generic data, start the emulator with --generic-slugs marketplace-keyword-research (or --generic-slugs alone, for every slug)',
    );
    const listed = await emulatorWithClient({ genericSlugs: ["marketplace-keyword-research"] });
    const ok = await call(listed.emulator.url, "marketplace-keyword-research");
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { code: number; data: { data: unknown[] } };
    expect(body.code).toBe(0);
    expect(body.data).toEqual(genericSlugData("marketplace-keyword-research", { keyword: "tea" }));
    expect((await call(listed.emulator.url, "websearch-trends-explore")).status).toBe(404);
    // Nothing can answer the doctor's probe: no flag is suggested for it.
    const probe = await call(listed.emulator.url, PROBE_SLUG);
    expect(((await probe.json()) as { msg: string }).msg).toBe(
      `no documented operation with slug "${PROBE_SLUG}"`,
    );
    expect(listed.emulator.ledger().totalCredits).toBe(1);
  });

  it("skillsync emulator --generic-slugs serves all, or the listed slugs", () => {
    expect(emulatorOptionsFromFlags({ genericSlugs: true }).genericSlugs).toBe(true);
    expect(emulatorOptionsFromFlags({ genericSlugs: "a-b, c-d" }).genericSlugs).toEqual(["a-b", "c-d"]);
    expect(emulatorOptionsFromFlags({}).genericSlugs).toBeUndefined();
  });
});
