import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { planPipelines } from "../../../engine/run/plan.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { builtin, count, marketplaceYaml, pipelineFrom, rows } from "../fixtures.js";

describe.each(WAREHOUSE_KINDS)("runner on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    it("loads marketplace pages until the total, keeps sponsored and organic rows of one product", async () => {
      const { emulator, client } = await emulatorWithClient();
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("marketplace-search"),
        params: { keyword: ["usb hub"], pages: ["10"] },
        concurrency: 4,
      });
      expect(s.status).toBe("succeeded");
      const ledger = emulator.ledger();
      const pages = ledger.calls.filter((c) => c.slug === "marketplace-search").length;
      const loaded = await count(w, "marketplace_search_results");
      // The emulator's total ends the pagination: every product loaded, no empty page asked for.
      const first = (
        await rows<{ n: number }>(w, "select count(distinct page) as n from marketplace_search_results")
      )[0]!;
      expect(Number(first.n)).toBe(pages);
      expect(loaded).toBeGreaterThan(20 * (pages - 1));
      const dup = await rows<{ asin: string; n: number }>(
        w,
        "select asin, page, count(*) as n from marketplace_search_results group by asin, page having count(*) > 1",
      );
      expect(dup.length).toBeGreaterThan(0);
      const typed = (
        await rows<Record<string, unknown>>(
          w,
          "select price, price_text, sponsored, available_date from marketplace_search_results where price is not null limit 1",
        )
      )[0]!;
      expect(typeof typed["price"]).toBe("number");
      expect(String(typed["price_text"])).toMatch(/^\$/);
      expect(String(typed["available_date"])).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });

    it("serves a repeated run from the store for zero credits, with no duplicate rows", async () => {
      const { emulator, client } = await emulatorWithClient();
      const params = { keyword: ["desk lamp", "usb hub"], pages: ["2"] };
      await runPipelines({ warehouse: w, client, pipelines: builtin("marketplace-search"), params });
      const before = emulator.ledger();
      const rowsBefore = await count(w, "marketplace_search_results");
      const again = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("marketplace-search"),
        params,
      });
      expect(emulator.ledger().totalCredits).toBe(before.totalCredits);
      expect(again.counters.callsCached).toBe(again.counters.callsDone);
      expect(again.counters.creditsSpent).toBe(0);
      expect(await count(w, "marketplace_search_results")).toBe(rowsBefore);
    });

    it("chains patent search → bibliography → legal status through SQL inputs, in batches", async () => {
      const { emulator, client } = await emulatorWithClient();
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("patent-search", "patent-bibliography", "patent-legal-status"),
        params: { q: ["battery cooling"], pages: ["3"], num: ["50"] },
      });
      expect(s.status).toBe("succeeded");
      const found = await count(w, "patent_search_results");
      expect(found).toBeGreaterThan(10);
      expect(await count(w, "patent_bibliography")).toBe(found);
      expect(await count(w, "patent_legal_status")).toBe(found);
      // One batch per 100 identifiers, charged per identifier.
      const bib = emulator.ledger().operations["patent-core-bibliography"]!;
      expect(bib.calls).toBe(Math.ceil(found / 100));
      expect(bib.credits).toBe(found);
      const overview = await rows<Record<string, unknown>>(
        w,
        "select * from patent_overview where legal_status is not null",
      );
      expect(overview.length).toBe(found);
      const names = await rows<{ name: string }>(w, "select name from patent_applicants");
      expect(names.some((n) => /[,"']/.test(n.name) || /[^\x00-\x7f]/.test(n.name))).toBe(true);
      const events = await count(w, "patent_legal_events");
      expect(events).toBeGreaterThan(found);
      // Nothing left to load: a second bibliography run plans no call.
      const again = await runPipelines({ warehouse: w, client, pipelines: builtin("patent-bibliography") });
      expect(again.counters.callsPlanned).toBe(0);
    });

    it("reads inputs from an inline list, a text file and a CSV column", async () => {
      const { emulator, client } = await emulatorWithClient();
      const yaml = (from: string) =>
        marketplaceYaml("merge")
          .replace(
            "input: { name: keyword, from: { param: keyword } }",
            `input: { name: keyword, from: ${from} }`,
          )
          .replace("required: true", "required: false");
      await runPipelines({
        warehouse: w,
        client,
        pipelines: [pipelineFrom(yaml("{ list: [alpha, beta] }"))],
      });
      await runPipelines({
        warehouse: w,
        client,
        pipelines: [
          pipelineFrom(yaml("{ file: words.txt }"), { "words.txt": "gamma\n\n  delta  \ngamma\n" }),
        ],
      });
      await runPipelines({
        warehouse: w,
        client,
        pipelines: [
          pipelineFrom(yaml("{ file: words.csv, column: kw }"), {
            "words.csv": 'id,kw\n1,"eps, ilon"\n2,zeta\n',
          }),
        ],
      });
      const keywords = (
        await rows<{ keyword: string }>(w, "select distinct keyword from mini_products order by keyword")
      ).map((r) => r.keyword);
      expect(keywords).toEqual(["alpha", "beta", "delta", "eps, ilon", "gamma", "zeta"]);
      expect(emulator.ledger().chargedCalls).toBe(6);
    });

    it("refuses a file input that leaves the pipeline's folder, sending nothing", async () => {
      const { emulator, client } = await emulatorWithClient();
      const p = pipelineFrom(
        marketplaceYaml("merge")
          .replace("from: { param: keyword }", "from: { file: ../../etc/passwd }")
          .replace("required: true", "required: false"),
      );
      await expect(runPipelines({ warehouse: w, client, pipelines: [p] })).rejects.toThrow(
        /leaves the pipeline's folder/,
      );
      expect(emulator.ledger().totalCalls).toBe(0);
    });

    it("merge updates in place, append adds, replace keeps only the latest run", async () => {
      const { client } = await emulatorWithClient();
      for (const mode of ["merge", "append", "replace"]) {
        const p = pipelineFrom(marketplaceYaml(mode).replaceAll("mini_products", `mini_${mode}`));
        await runPipelines({ warehouse: w, client, pipelines: [p], params: { keyword: ["lamp"] } });
        const one = await count(w, `mini_${mode}`);
        await runPipelines({ warehouse: w, client, pipelines: [p], params: { keyword: ["lamp", "hub"] } });
        const two = await count(w, `mini_${mode}`);
        const runsLeft = (
          await rows<{ n: number }>(w, `select count(distinct run_id) as n from mini_${mode}`)
        )[0]!;
        if (mode === "merge") expect(two).toBe(one * 2);
        if (mode === "append") expect(two).toBe(one * 3);
        if (mode === "replace") {
          expect(two).toBe(one * 2);
          expect(Number(runsLeft.n)).toBe(1);
        }
      }
    });

    it("keeps members the mapping does not name in the JSON column when the schema drifts", async () => {
      const { client } = await emulatorWithClient({ driftRate: 1 });
      await runPipelines({
        warehouse: w,
        client,
        pipelines: [pipelineFrom(marketplaceYaml("merge"))],
        params: { keyword: ["lamp"] },
      });
      const extras = await rows<{ extra: unknown }>(w, "select extra from mini_products");
      const parsed = extras.map(
        (r) => (typeof r.extra === "string" ? JSON.parse(r.extra) : r.extra) as Record<string, unknown>,
      );
      // Unnamed members (title, rating…) and the drifted ones are all there.
      expect(parsed.every((e) => e && "title" in e)).toBe(true);
      const keys = new Set(parsed.flatMap((e) => Object.keys(e)));
      expect(
        [...keys].some(
          (k) =>
            ![
              "title",
              "position",
              "extractedPrice",
              "oldPrice",
              "extractedOldPrice",
              "extractedPriceUnit",
              "rating",
              "ratings",
              "monthlySalesUnits",
              "sponsored",
              "snapEbtEligible",
              "imageUrl",
              "asinUrl",
              "availableDate",
            ].includes(k),
        ),
      ).toBe(true);
    });

    it("sends records that cannot be typed to the rejects table and goes on", async () => {
      const { client } = await emulatorWithClient();
      const p = pipelineFrom(
        marketplaceYaml("merge", "0", "    ratings_int: { from: rating, type: integer }\n"),
      );
      const s = await runPipelines({ warehouse: w, client, pipelines: [p], params: { keyword: ["lamp"] } });
      // Loud by default: the other rows are loaded, and the run says records were lost.
      expect(s.status).toBe("warnings");
      expect(s.counters.rowsRejected).toBeGreaterThan(0);
      const rejects = await rows<{ reason: string; table_name: string }>(
        w,
        "select reason, table_name from skillsync_rejects",
      );
      expect(rejects.length).toBe(s.counters.rowsRejected);
      expect(rejects[0]!.reason).toMatch(/mini_products\.ratings_int: .* is not an integer/);
      expect(await count(w, "mini_products")).toBeGreaterThan(0);
    });

    it("records a 5xx as a failure, does not retry it, and a later run completes the rest", async () => {
      const { emulator, client } = await emulatorWithClient({ errorRate: 1 });
      const p = builtin("marketplace-search");
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: p,
        params: { keyword: ["a", "b", "c"] },
      });
      expect(s.status).toBe("failed");
      expect(s.counters.callsFailed).toBe(3);
      expect(emulator.ledger().totalCalls).toBe(3);
      const outcomes = await rows<{ outcome: string; error_code: string }>(
        w,
        "select outcome, error_code from skillsync_calls",
      );
      expect(outcomes.every((o) => o.error_code === "SERVER" && o.outcome === "ambiguous")).toBe(true);
      emulator.setFaults({ errorRate: 0 });
      const later = await runPipelines({
        warehouse: w,
        client,
        pipelines: p,
        params: { keyword: ["a", "b", "c"] },
      });
      expect(later.status).toBe("succeeded");
      expect(later.resumed).toBe(true);
      expect(emulator.ledger().chargedCalls).toBe(3);
    });

    it("stops at once with an auth failure on a refused key", async () => {
      const { emulator, client: wrong } = await emulatorWithClient({}, { apiKey: `${DEMO_KEY}-wrong` });
      const s = await runPipelines({
        warehouse: w,
        client: wrong,
        pipelines: builtin("marketplace-search"),
        params: { keyword: ["a", "b", "c", "d", "e"] },
        concurrency: 1,
      });
      expect(s.authFailure).toBe(true);
      expect(s.counters.callsFailed).toBe(1);
      expect(s.counters.creditsSpent).toBe(0);
      expect(emulator.ledger().chargedCalls).toBe(0);
    });

    it("a resumed run reuses what it already paid for even when freshness is 0", async () => {
      const { emulator, client } = await emulatorWithClient();
      const p = pipelineFrom(marketplaceYaml("append"));
      const keyword = ["a", "b", "c", "d", "e", "f"];
      const first = await runPipelines({
        warehouse: w,
        client,
        pipelines: [p],
        params: { keyword },
        maxCredits: 3,
        concurrency: 2,
      });
      expect(first.status).toBe("ceiling");
      const rest = await runPipelines({ warehouse: w, client, pipelines: [p], params: { keyword } });
      expect(rest.resumed).toBe(true);
      expect(emulator.ledger().chargedCalls).toBe(keyword.length);
      const perKeyword = await rows<{ keyword: string; n: number }>(
        w,
        "select keyword, count(distinct run_id) as n from mini_products group by keyword",
      );
      expect(perKeyword.length).toBe(keyword.length);
      expect(perKeyword.every((r) => Number(r.n) === 1)).toBe(true);
      // The pages loaded before the stop are not loaded again (append would add them twice).
      const copies = await rows<{ n: number }>(
        w,
        "select count(*) as n from mini_products group by keyword, item_index having count(*) > 1",
      );
      expect(copies).toEqual([]);
    });

    it("an unexpected error in one call stops the other workers: no call is sent after the run ends", async () => {
      const { emulator, client } = await emulatorWithClient({ latencyMs: 5 });
      let sent = 0;
      // A transport fault no SkillApiError describes (a bug, say): the runner cannot classify it.
      const faulty = {
        prepare: client.prepare.bind(client),
        send: (req: Parameters<typeof client.send>[0]) => {
          if (++sent === 6) return Promise.reject(new TypeError("socket exploded"));
          return client.send(req);
        },
      };
      const keyword = Array.from({ length: 200 }, (_, i) => `kw${i}`);
      await expect(
        runPipelines({
          warehouse: w,
          client: faulty,
          pipelines: builtin("marketplace-search"),
          params: { keyword },
          concurrency: 4,
        }),
      ).rejects.toThrow("socket exploded");
      const atEnd = sent;
      // Only the calls already in flight when the error came were still sent.
      expect(atEnd).toBeLessThanOrEqual(6 + 4);
      await new Promise((r) => setTimeout(r, 200));
      expect(sent).toBe(atEnd);
      // What they brought back was recorded and loaded before the run was declared failed.
      const run = (await rows<{ status: string }>(w, "select status from skillsync_runs"))[0]!;
      expect(run.status).toBe("failed");
      const loaded = await rows<{ n: number }>(
        w,
        "select count(distinct keyword) as n from marketplace_search_results",
      );
      expect(Number(loaded[0]!.n)).toBe(emulator.ledger().chargedCalls);
      expect(await count(w, "skillsync_calls", "outcome = 'succeeded'")).toBe(emulator.ledger().chargedCalls);
    });

    it("validates input values read by SQL, typed as their param, before sending any call", async () => {
      const { emulator, client } = await emulatorWithClient();
      const p = pipelineFrom(`name: sql-pages
skill: marketplace-search
params:
  n: { type: integer, min: 1 }
input: { name: n, from: { sql: "select '2' as n union all select 'x' union all select '0'" } }
request: { keyword: kw, page: "{{n}}" }
records: { path: products, table: sql_pages, mode: append, columns: { asin: text } }
`);
      const err = await runPipelines({ warehouse: w, client, pipelines: [p] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toContain('n: "x": "x" is not a whole number');
      expect((err as Error).message).toContain('n: "0": 0 is below the minimum 1');
      expect(emulator.ledger().calls).toHaveLength(0);
    });

    it("plans a repeated run as answered from the store: no credits, and a stale store is paid again", async () => {
      const { emulator, client } = await emulatorWithClient();
      const pipelines = builtin("marketplace-search");
      const params = { keyword: ["a", "b", "c"] };
      await runPipelines({ warehouse: w, client, pipelines, params: { keyword: ["a", "b"] } });
      const plan = await planPipelines({
        warehouse: w,
        pipelines,
        params,
        prepare: client.prepare.bind(client),
      });
      expect(plan.pipelines[0]).toMatchObject({ calls: 3, fromStore: 2, credits: 1 });
      const stale = await planPipelines({
        warehouse: w,
        pipelines: [{ ...pipelines[0]!, freshness: 0 }],
        params,
        prepare: client.prepare.bind(client),
      });
      expect(stale.pipelines[0]).toMatchObject({ calls: 3, fromStore: 0, credits: 3 });
      expect(emulator.ledger().totalCalls).toBe(2);
    });

    it("forms none of the calls left once a run has stopped at a ceiling", async () => {
      const { client } = await emulatorWithClient();
      let prepared = 0;
      const counting = {
        prepare: (slug: string, body: Record<string, unknown>) => {
          prepared++;
          return client.prepare(slug, body);
        },
        send: client.send.bind(client),
      };
      const keyword = Array.from({ length: 2000 }, (_, i) => `kw${i}`);
      const s = await runPipelines({
        warehouse: w,
        client: counting as typeof client,
        pipelines: builtin("marketplace-search"),
        params: { keyword },
        maxCredits: 3,
        concurrency: 2,
      });
      expect(s.status).toBe("ceiling");
      // Every request is validated once before anything is sent (the preflight); after the stop
      // no call is formed (each formed call is prepared once more).
      expect(prepared).toBeGreaterThanOrEqual(keyword.length);
      expect(prepared).toBeLessThan(keyword.length + 20);
    });

    it("stops dispatching at --max-credits, lets calls in flight finish, and resumes later", async () => {
      const { emulator, client } = await emulatorWithClient({ latencyMs: 20 });
      const keywords = Array.from({ length: 12 }, (_, i) => `kw${i}`);
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("marketplace-search"),
        params: { keyword: keywords },
        maxCredits: 5,
        concurrency: 4,
      });
      expect(s.status).toBe("ceiling");
      expect(s.stopReason).toMatch(/--max-credits of 5/);
      expect(emulator.ledger().totalCredits).toBeLessThanOrEqual(5);
      const done = await rows<{ n: number }>(
        w,
        "select count(distinct keyword) as n from marketplace_search_results",
      );
      expect(Number(done[0]!.n)).toBe(emulator.ledger().chargedCalls);
      const rest = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("marketplace-search"),
        params: { keyword: keywords },
        concurrency: 4,
      });
      expect(rest.resumed).toBe(true);
      expect(rest.status).toBe("succeeded");
      expect(emulator.ledger().chargedCalls).toBe(12);
      expect(
        await rows(
          w,
          "select keyword, page, item_index, observed_at, count(*) from marketplace_search_results group by 1,2,3,4 having count(*) > 1",
        ),
      ).toEqual([]);
    });
  });
});
