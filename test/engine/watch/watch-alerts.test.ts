import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { changedBetween, publishedPatents } from "../../helpers/legal-status.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { tempDir } from "../../scheduler/fixtures.js";

const D = "2026-11-08";
const D7 = "2026-11-15";

interface AlertJson {
  id: string;
  watch: string;
  key: string;
  column: string | null;
  change: string;
  old: string | null;
  new: string | null;
  loadId: number;
}

describe.each(WAREHOUSE_KINDS)("watches on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("alert exactly the watched keys the reload changed, once; nothing for unwatched keys or an unchanged reload", async () => {
      const { emulator } = await emulatorWithClient({ date: D });
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const patents = publishedPatents(120, D);
      const dir = tempDir();
      const all = join(dir, "patents.txt");
      writeFileSync(all, `${patents.join("\n")}\n`);
      const watched = patents.filter((_, i) => i % 2 === 0);
      const keys = join(dir, "watched.txt");
      writeFileSync(keys, `# half of them\n${watched.join("\n")}\n`);
      const load = async () => {
        const r = await cli(
          ["run", "patent-legal-status", "--param", `patent=@${all}`, "--refresh", "--db", db, "--json"],
          env,
        );
        expect(r.code, r.err).toBe(0);
      };
      const alerts = async (...flags: string[]) => {
        const r = await cli(["alerts", "--db", db, "--json", ...flags]);
        expect(r.code, r.err).toBe(0);
        return JSON.parse(r.out) as AlertJson[];
      };
      await load();
      const add = await cli([
        "watch",
        "add",
        "status",
        "--table",
        "patent_legal_status",
        "--keys",
        `@${keys}`,
        "--db",
        db,
      ]);
      expect(add.code, add.err).toBe(0);
      expect(add.out).toContain(`watch status made on patent_legal_status (${watched.length} key(s))`);
      expect(add.err).toContain("alerts are recorded only");
      expect(await alerts()).toEqual([]);

      emulator.setDate(D7);
      await load();
      const expected = changedBetween(watched, D, D7);
      expect(expected.length).toBeGreaterThan(0);
      const got = await alerts();
      expect(new Set(got.map((a) => a.key))).toEqual(new Set(expected));
      expect(new Set(got.map((a) => a.id)).size).toBe(got.length);
      const test = await cli(["watch", "test", "status", "--db", db, "--json"]);
      expect(new Set((JSON.parse(test.out) as AlertJson[]).map((a) => a.key))).toEqual(new Set(expected));

      await load();
      expect(await alerts()).toHaveLength(got.length);
      expect(await alerts("--since", "last")).toEqual(
        got.filter((a) => a.loadId === Math.max(...got.map((x) => x.loadId))),
      );
    }, 90_000);
  });
});
