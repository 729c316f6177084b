import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { knownPublicationNumber } from "../../../emulator/generate/patent-numbers.js";
import { canonicalJson, legalStatusAt } from "../../../emulator/index.js";
import { Rng } from "../../../emulator/random.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { tempDir } from "../../scheduler/fixtures.js";

const D = "2026-11-08";
const D7 = "2026-11-15";

/** 500 distinct publication numbers the emulator knows and has published by D. */
function patents(): string[] {
  const rng = new Rng(30);
  const out = new Set<string>();
  while (out.size < 500) {
    const pn = knownPublicationNumber(rng);
    if (legalStatusAt(pn, D)) out.add(pn);
  }
  return [...out];
}

interface Load {
  id: number;
  versionsNew: number;
  unchanged: number;
  closed: number;
}

// The acceptance: two loads a week apart list exactly the patents whose status the
// emulator changed, compared with the emulator's own answers at both dates; a third load of
// unchanged answers makes no version.
describe.each(WAREHOUSE_KINDS)("legal status history over a week on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("lists exactly the patents the emulator changed, and a reload of the same answers changes nothing", async () => {
      const { emulator } = await emulatorWithClient({ date: D });
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const list = patents();
      const file = join(tempDir(), "patents.txt");
      writeFileSync(file, `${list.join("\n")}\n`);
      const load = async (...flags: string[]): Promise<Load> => {
        const r = await cli(
          ["run", "patent-legal-status", "--param", `patent=@${file}`, "--db", db, "--json", ...flags],
          env,
        );
        expect(r.code, r.err).toBe(0);
        const detail = await cli(["runs", JSON.parse(r.out).runId, "--db", db, "--json"]);
        return (JSON.parse(detail.out) as { loads: Load[] }).loads[0]!;
      };

      const first = await load();
      expect(first).toMatchObject({ versionsNew: 500, closed: 0 });
      emulator.setDate(D7);
      const second = await load("--refresh");
      const changed = list.filter(
        (pn) => canonicalJson(legalStatusAt(pn, D)) !== canonicalJson(legalStatusAt(pn, D7)),
      );
      // The emulator moves a partial share in a week: the test sees changes and non-changes.
      expect(changed.length).toBeGreaterThan(10);
      expect(changed.length).toBeLessThan(250);
      expect(second).toMatchObject({
        versionsNew: changed.length,
        closed: changed.length,
        unchanged: 500 - changed.length,
      });

      const out = await cli([
        "changes",
        "patent_legal_status",
        "--since",
        String(first.id),
        "--db",
        db,
        "--json",
      ]);
      const listed = JSON.parse(out.out) as { publication_number: string; change: string; load_id: number }[];
      expect(new Set(listed.map((c) => c.publication_number))).toEqual(new Set(changed));
      expect(listed.every((c) => c.change === "changed" && Number(c.load_id) === second.id)).toBe(true);

      const third = await load("--refresh");
      expect(third).toMatchObject({ versionsNew: 0, closed: 0, unchanged: 500 });
      const none = await cli([
        "changes",
        "patent_legal_status",
        "--since",
        String(second.id),
        "--db",
        db,
        "--json",
      ]);
      expect(JSON.parse(none.out)).toEqual([]);
      const current = await cli([
        "sql",
        "select count(*) as n from patent_legal_status_current",
        "--db",
        db,
        "--json",
      ]);
      expect(Number(JSON.parse(current.out)[0].n)).toBe(500);
    });
  });
});
