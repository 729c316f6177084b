import { describe, expect, it } from "vitest";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

interface AlertJson {
  key: string;
  column: string | null;
  old: string | null;
  new: string | null;
  loadId: number;
}

describe.each(WAREHOUSE_KINDS)("a price watch on marketplace_price_history (%s)", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("--fell-by 10% alerts exactly the products whose price fell by at least 10 % between two loads", async () => {
      const { emulator } = await emulatorWithClient({ date: "2026-11-01" });
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const load = async () => {
        const r = await cli(
          [
            "run",
            "marketplace-search",
            "--param",
            "keyword=usb c cable",
            "--param",
            "keyword=desk lamp",
            "--param",
            "pages=2",
            "--refresh",
            "--db",
            db,
            "--json",
          ],
          env,
        );
        expect(r.code, r.err).toBe(0);
      };
      await load();
      const add = await cli([
        "watch",
        "add",
        "cheaper",
        "--table",
        "marketplace_price_history",
        "--column",
        "price",
        "--fell-by",
        "10%",
        "--db",
        db,
      ]);
      expect(add.code, add.err).toBe(0);
      emulator.setDate("2026-11-08");
      await load();
      const fell = await cli([
        "sql",
        `select keyword, asin, load_id from marketplace_price_history
          where previous_price is not null and price <= previous_price * 0.9
            and load_id = (select max(load_id) from marketplace_price_history)`,
        "--db",
        db,
        "--json",
      ]);
      expect(fell.code, fell.err).toBe(0);
      const expected = (JSON.parse(fell.out) as { keyword: string; asin: string }[]).map((r) =>
        JSON.stringify([r.keyword, r.asin]),
      );
      expect(expected.length).toBeGreaterThan(0);
      const r = await cli(["alerts", "--watch", "cheaper", "--db", db, "--json"]);
      const alerts = JSON.parse(r.out) as AlertJson[];
      expect(alerts.map((a) => a.key).sort()).toEqual([...expected].sort());
      expect(alerts.every((a) => a.column === "price" && Number(a.new) <= Number(a.old) * 0.9)).toBe(true);
      // One product watched by its asin alone: only its rows.
      const one = JSON.parse(expected[0]!)[1] as string;
      const named = await cli([
        "watch",
        "add",
        "one",
        "--table",
        "marketplace_price_history",
        "--keys",
        one,
        "--backfill",
        "--db",
        db,
        "--json",
      ]);
      expect(named.code, named.err).toBe(0);
      const mine = JSON.parse(
        (await cli(["alerts", "--watch", "one", "--db", db, "--json"])).out,
      ) as AlertJson[];
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((a) => (JSON.parse(a.key) as string[])[1] === one)).toBe(true);
    }, 120_000);
  });
});
