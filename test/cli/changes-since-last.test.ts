import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { changedBetween, publishedPatents } from "../helpers/legal-status.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { tempDir } from "../scheduler/fixtures.js";

const D = "2026-11-08";
const D7 = "2026-11-15";

interface Change {
  publication_number: string;
  change: string;
  load_id: number;
}

describe("skillsync changes --since last", () => {
  it("lists the changes of the table's latest load, and none after a load that changed nothing", async () => {
    const { emulator } = await emulatorWithClient({ date: D });
    const db = freshWarehouseUrl("sqlite");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const patents = publishedPatents(80, D);
    const file = join(tempDir(), "patents.txt");
    writeFileSync(file, `${patents.join("\n")}\n`);
    const load = async () => {
      const r = await cli(
        ["run", "patent-legal-status", "--param", `patent=@${file}`, "--refresh", "--db", db, "--json"],
        env,
      );
      expect(r.code, r.err).toBe(0);
      const detail = await cli(["runs", JSON.parse(r.out).runId, "--db", db, "--json"]);
      return (JSON.parse(detail.out) as { loads: { id: number }[] }).loads[0]!.id;
    };
    const last = async (...flags: string[]) => {
      const r = await cli(["changes", "patent_legal_status", "--since", "last", "--db", db, ...flags]);
      expect(r.code, r.err).toBe(0);
      return r.out;
    };

    const first = await load();
    const added = JSON.parse(await last("--json")) as Change[];
    expect(added).toHaveLength(80);
    expect(added.every((c) => c.change === "added" && Number(c.load_id) === first)).toBe(true);

    emulator.setDate(D7);
    const second = await load();
    const changed = changedBetween(patents, D, D7);
    expect(changed.length).toBeGreaterThan(0);
    const listed = JSON.parse(await last("--json")) as Change[];
    expect(new Set(listed.map((c) => c.publication_number))).toEqual(new Set(changed));
    expect(listed.every((c) => c.change === "changed" && Number(c.load_id) === second)).toBe(true);
    expect(await last()).toContain(`${listed.length} change(s)`);

    // The same answers again: the latest load wrote no version, so it changed nothing.
    await load();
    expect(await last()).toBe("no changes in patent_legal_status made by its latest load\n");
    expect(JSON.parse(await last("--json"))).toEqual([]);

    const help = await cli(["changes", "--help"]);
    expect(help.out).toMatch(/--since <last\|date\|load>\s+last: the changes the table's latest load made/);
  }, 60_000);
});
