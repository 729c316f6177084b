import { sql } from "kysely";
import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import type { LoadedPipeline } from "../../../engine/define/pipeline-file.js";
import { ensureViews } from "../../../engine/load/ensure-views.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { builtin, rows } from "../fixtures.js";

const withView = (viewSql: string): LoadedPipeline => ({
  ...builtin("marketplace-search")[0]!,
  views: [{ name: "answer_view", columns: {}, sql: viewSql }],
});

describe.each(WAREHOUSE_KINDS)("pipeline views on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    let url: string;
    beforeEach(async () => {
      url = freshWarehouseUrl(kind);
      w = await openWarehouse(url);
      await migrateToLatest(w);
      return () => w.close();
    });

    it("re-creates a view whose declared SQL changed (an edited pipeline file takes effect)", async () => {
      await ensureViews(w, withView("select 1 as answer"));
      expect(await rows(w, "select answer from answer_view")).toEqual([{ answer: 1 }]);
      await ensureViews(w, withView("select 2 as answer, 'two' as word"));
      expect(await rows(w, "select answer, word from answer_view")).toEqual([{ answer: 2, word: "two" }]);
    });

    it("re-creates a view whose new SQL drops or renames a column", async () => {
      await ensureViews(w, withView("select 1 as answer, 'one' as word"));
      await ensureViews(w, withView("select 2 as reply"));
      expect(await rows(w, "select * from answer_view")).toEqual([{ reply: 2 }]);
    });

    it("leaves a view that is as declared alone", async () => {
      await ensureViews(w, withView("select 1 as answer"));
      if (kind === "sqlite") {
        const version = async () => (await rows<{ schema_version: number }>(w, "pragma schema_version"))[0];
        const before = await version();
        await ensureViews(w, withView("select 1 as answer;"));
        expect(await version()).toEqual(before);
        return;
      }
      // A reader holding the view (an analyst's long query): replacing the view would wait for it.
      const reader = new pg.Client({ connectionString: url.replace(/[?&]schema=[^&]*/, "") });
      await reader.connect();
      try {
        const schema = new URL(url).searchParams.get("schema")!;
        await reader.query("begin");
        await reader.query(`select * from "${schema}".answer_view`);
        const done = ensureViews(w, withView("select 1 as answer")).then(() => "done");
        const late = new Promise((resolve) => setTimeout(() => resolve("waited for the reader"), 3000));
        expect(await Promise.race([done, late])).toBe("done");
      } finally {
        await reader.query("rollback");
        await reader.end();
      }
    });

    it("refuses a view that is not one SELECT, naming the view", async () => {
      const err = await ensureViews(w, withView("select 1; drop table skillsync_calls")).catch((e) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(String(err.message)).toContain("answer_view");
      expect(await rows(w, "select count(*) as n from skillsync_calls")).toEqual([{ n: 0 }]);
    });

    it.runIf(kind === "sqlite")("leaves a table of the view's name as it is", async () => {
      await sql`create table answer_view (kept integer)`.execute(w.db);
      await sql`insert into answer_view values (7)`.execute(w.db);
      await ensureViews(w, withView("select 1 as answer"));
      expect(await rows(w, "select kept from answer_view")).toEqual([{ kept: 7 }]);
    });
  });
});
