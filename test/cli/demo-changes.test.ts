import { describe, expect, it } from "vitest";
import { DEMO_KEYWORDS } from "../../cli/commands/demo.js";
import { cli } from "../helpers/cli.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

interface Change {
  publication_number: string;
  change: string;
  column_name: string | null;
  old_value: string | null;
  new_value: string | null;
}

/** What `demo --changes` printed: the load its changes are counted since, and the two marketplace loads. */
function parseDemo(out: string): { since: string; count: number; before: string; after: string } {
  const changes = /changes in patent_legal_status since load (\d+): (\d+)/.exec(out);
  const drops = /biggest price drops from load (\d+) to load (\d+)/.exec(out);
  expect(changes, out).not.toBeNull();
  expect(drops, out).not.toBeNull();
  return { since: changes![1]!, count: Number(changes![2]), before: drops![1]!, after: drops![2]! };
}

async function changesSince(db: string, since: string): Promise<Change[]> {
  const r = await cli(["changes", "patent_legal_status", "--since", since, "--db", db, "--json"]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Change[];
}

/** The printed line of a change: its key, its column (or `added`) and, for a change, old and new. */
function lineOf(c: Change): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const parts =
    c.change === "added"
      ? [c.publication_number, "added"]
      : [c.publication_number, c.column_name ?? "", c.old_value ?? "∅", c.new_value ?? "∅"];
  return new RegExp(`^\\d+\\s+${parts.map(esc).join("\\s+")}\\s*$`, "m");
}

describe("demo --changes", () => {
  it("loads twice a week apart, prints the legal-status changes and price drops the warehouse holds, and runs again on the same file", async () => {
    const db = freshWarehouseUrl("sqlite");
    const first = await cli(["demo", "--changes", "--db", db]);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("first load at emulated date 2026-11-01");
    expect(first.out).toContain("second load at emulated date 2026-11-08");
    // Its patent queries are its keywords, each named.
    const queries = DEMO_KEYWORDS.map((k) => JSON.stringify(k)).join(", ");
    expect(first.out).toContain(`patent-search for queries ${queries} (50 results each)`);

    const printed = parseDemo(first.out);
    const changes = await changesSince(db, printed.since);
    expect(changes.length).toBe(printed.count);
    // A week on the clock: statuses changed and new patents were published.
    expect(changes.some((c) => c.change === "changed" && c.column_name === "legal_status")).toBe(true);
    expect(changes.some((c) => c.change === "added")).toBe(true);
    for (const c of changes.slice(0, 15)) expect(first.out).toMatch(lineOf(c));

    const drops = await cli(
      [
        "sql",
        `select asin, previous_price, price from marketplace_price_history
         where load_id = ${printed.after} and previous_load_id = ${printed.before} and price < previous_price
         order by (price - previous_price) / previous_price, keyword, asin`,
        "--db",
        db,
        "--json",
      ],
      {},
    );
    const dropRows = JSON.parse(drops.out) as { asin: string; previous_price: number; price: number }[];
    expect(dropRows.length).toBeGreaterThan(0);
    const biggest = dropRows[0]!;
    expect(first.out).toMatch(
      new RegExp(`${biggest.asin}\\s+${biggest.previous_price}\\s+${biggest.price}\\s+-\\d`),
    );

    // Again on the same file: new loads, the same week's changes counted since this run's first load.
    const again = await cli(["demo", "--changes", "--db", db]);
    expect(again.code, again.err).toBe(0);
    const second = parseDemo(again.out);
    expect(Number(second.since)).toBeGreaterThan(Number(printed.since));
    expect(Number(second.before)).toBeGreaterThan(Number(printed.after));
    const changesAgain = await changesSince(db, second.since);
    expect(changesAgain.length).toBe(second.count);
    expect(changesAgain.some((c) => c.change === "changed" && c.column_name === "legal_status")).toBe(true);
    for (const c of changesAgain.slice(0, 15)) expect(again.out).toMatch(lineOf(c));
  }, 90_000);
});
