import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const PAGE = fileURLToPath(new URL("../../docs/analysts.md", import.meta.url));
const CHANGE_SECTION = "What changed since the last load";

interface Question {
  section: string;
  heading: string;
  /** The text between the heading and the query. */
  sentence: string;
  sql: string[];
}

/** The page's questions: each `###` heading, its section (`##`), its sentence and its ```sql blocks. */
function questionsOf(markdown: string): Question[] {
  const out: Question[] = [];
  let section = "";
  let block: string[] | undefined;
  for (const line of markdown.split("\n")) {
    const q = out.at(-1);
    if (block) {
      if (line.startsWith("```")) {
        q?.sql.push(block.join("\n"));
        block = undefined;
      } else block.push(line);
    } else if (line.startsWith("## ")) section = line.slice(3).trim();
    else if (line.startsWith("### "))
      out.push({ section, heading: line.slice(4).trim(), sentence: "", sql: [] });
    else if (line.startsWith("```sql")) block = [];
    else if (q && !q.sql.length && line.trim()) q.sentence += `${line} `;
  }
  return out;
}

const page = readFileSync(PAGE, "utf8");
const questions = questionsOf(page);
/** The tables the model's mermaid diagram relates (`a ||--o{ b : "…"`). */
const diagramTables = [
  ...new Set(
    [...(page.split("```mermaid")[1]?.split("```")[0] ?? "").matchAll(/^\s+(\w+) \S+ (\w+) :/gm)].flatMap(
      (m) => [m[1]!, m[2]!],
    ),
  ),
];

describe("docs/analysts.md", () => {
  it("answers at least 12 questions, four of them about change, each with a sentence and one query", () => {
    expect(questions.length).toBeGreaterThanOrEqual(12);
    expect(questions.filter((q) => q.section === CHANGE_SECTION).length).toBeGreaterThanOrEqual(4);
    for (const q of questions) {
      expect(q.sql, q.heading).toHaveLength(1);
      expect(q.sentence.trim(), q.heading).toMatch(/^[^\n]+\.$/);
    }
  });
});

describe.each(WAREHOUSE_KINDS)("docs/analysts.md queries on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("run through `skillsync sql` on a warehouse loaded as `demo --changes` does, and each returns rows", async () => {
      const db = freshWarehouseUrl(kind);
      // Two loads a week apart on the emulator's clock (2026-11-01, then 2026-11-08) ...
      const demo = await cli(["demo", "--changes", "--db", db]);
      expect(demo.code, demo.err).toBe(0);
      // ... and the families and TRO checks the page's other questions read, at the second date.
      const { emulator } = await emulatorWithClient({ date: "2026-11-08" });
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      for (const args of [["patent-family"], ["ip-tro-check", "--param", "products=8"]]) {
        const run = await cli(["run", ...args, "--db", db], env);
        expect(run.code, run.err).toBe(0);
      }

      // The model's diagram names tables these loads made.
      const tables = await cli(["tables", "--db", db, "--json"]);
      const have = new Set((JSON.parse(tables.out) as { table: string }[]).map((t) => t.table));
      expect(diagramTables.length).toBeGreaterThan(10);
      for (const t of diagramTables) expect(have.has(t), `${t} in the diagram`).toBe(true);

      for (const q of questions) {
        const r = await cli(["sql", q.sql[0]!, "--db", db, "--json"]);
        expect(r.code, `${q.heading}\n${r.err}`).toBe(0);
        const rows = JSON.parse(r.out) as unknown[];
        // The change questions above all: a week on the clock changed statuses, prices, ranks and patents.
        expect(rows.length, `${q.section} / ${q.heading}`).toBeGreaterThan(0);
      }
    }, 60_000);
  });
});
