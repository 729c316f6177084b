import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import {
  describePipelines,
  README_END,
  README_START,
  replacePipelinesBlock,
} from "../../pipelines/engine/describe.js";
import { builtinPipelineDir, listBuiltinPipelines, loadPipeline } from "../../pipelines/engine/load.js";
import { compileMapping } from "../../pipelines/engine/mapping.js";
import { runPipelines } from "../../pipelines/engine/runner.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { rows } from "../pipelines/fixtures.js";

const README = join(builtinPipelineDir(), "..", "README.md");

/** The section of one pipeline in the generated markdown. */
function section(markdown: string, name: string): string {
  const start = markdown.indexOf(`### \`${name}\``);
  const next = markdown.indexOf("\n### ", start + 1);
  return start < 0 ? "" : markdown.slice(start, next < 0 ? undefined : next);
}

describe("the generated pipelines list", () => {
  const markdown = describePipelines();

  it("has a section per built-in pipeline with its skill, every param and every table, child tables included", () => {
    const files = listBuiltinPipelines();
    expect(files.length).toBeGreaterThanOrEqual(19);
    for (const file of files) {
      const p = loadPipeline(file);
      const s = section(markdown, p.name);
      expect(s, p.name).not.toBe("");
      expect(s).toContain(`Skill \`${p.skill}\``);
      for (const [name, def] of Object.entries(p.params)) {
        expect(s).toMatch(new RegExp(`\\| \`${name}\` \\| [^\\n]*${def.repeatable ? "repeatable" : ""}`));
      }
      const m = compileMapping(p.records);
      for (const t of [m.table, ...m.children])
        expect(s).toContain(t.key.length ? `\`${t.name}\` (key ${t.key.join(", ")})` : `\`${t.name}\`:`);
      for (const v of p.views) expect(s).toContain(`\`${v.name}\``);
    }
    // Examples are not built-ins.
    expect(files.map((f) => basename(f))).not.toContain("generic-keyword-research.yaml");
    expect(markdown).not.toContain("generic-keyword-research");
  });

  it("shows defaults, enums and bounds, escaping pipes inside cells", () => {
    const s = section(markdown, "ip-design-patent-check");
    expect(s).toContain("| `mode` | `physical` \\| `line` \\| `hybrid` | `physical` |");
    expect(s).toContain("| `top` | integer 1..100 | `20` |");
    expect(section(markdown, "patent-fulltext-images")).toContain("paged by `offset` (offset)");
  });

  it("replaces only the block between the markers, and is stable", () => {
    const readme = `# Title\n\nintro\n\n${README_START}\nold list\n${README_END}\n\n## After\n`;
    const once = replacePipelinesBlock(readme, "NEW")!;
    expect(once).toBe(`# Title\n\nintro\n\n${README_START}\n\nNEW\n\n${README_END}\n\n## After\n`);
    expect(replacePipelinesBlock(once, "NEW")).toBe(once);
    expect(replacePipelinesBlock("# no markers\n", "NEW")).toBeUndefined();
  });

  it("scripts/readme-pipelines.ts --check fails on a stale block; without --check it rewrites it", () => {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-readme-"));
    try {
      const file = join(dir, "README.md");
      writeFileSync(file, `# x\n\n${README_START}\nstale\n${README_END}\n`);
      const script = (...args: string[]) =>
        spawnSync(process.execPath, ["--import", "tsx", "scripts/readme-pipelines.ts", file, ...args], {
          encoding: "utf8",
        });
      const stale = script("--check");
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain("stale");
      expect(readFileSync(file, "utf8")).toContain("stale");
      expect(script().status).toBe(0);
      expect(readFileSync(file, "utf8")).toBe(`# x\n\n${README_START}\n\n${markdown}\n\n${README_END}\n`);
      expect(script("--check").status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const readme = existsSync(README) ? readFileSync(README, "utf8") : "";
  const marked = readme.includes(README_START) && readme.includes(README_END);
  if (!marked) console.warn(`README.md has no ${README_START} block yet: its freshness check is skipped`);

  it.skipIf(!marked)(
    "README.md's block is the generated one (run: npx tsx scripts/readme-pipelines.ts)",
    () => {
      expect(replacePipelinesBlock(readme, markdown)).toBe(readme);
    },
  );
});

describe("pipelines/examples", () => {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-examples-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("ip-tro-check-from-file reads its images from the file beside it into the built-in's tables", async () => {
    const example = loadPipeline(join(builtinPipelineDir(), "examples", "ip-tro-check-from-file.yaml"));
    const own = compileMapping(example.records);
    const builtin = compileMapping(loadPipeline("ip-tro-check").records);
    // Same tables, same columns: the view of the built-in covers what the example loads.
    expect([own.table, ...own.children].map((t) => [t.name, t.columns])).toEqual(
      [builtin.table, ...builtin.children].map((t) => [t.name, t.columns]),
    );

    const { emulator, client } = await emulatorWithClient();
    const w = await openWarehouse(join(dir, "example.db"));
    try {
      const s = await runPipelines({ warehouse: w, client, pipelines: [example] });
      expect(s.status).toBe("succeeded");
      const file = readFileSync(join(builtinPipelineDir(), "examples", "product-images.txt"), "utf8");
      const images = file.split("\n").filter(Boolean);
      expect(emulator.ledger().calls).toHaveLength(images.length);
      const loaded = await rows<{ image_url: string }>(w, "select image_url from ip_tro_checks order by 1");
      expect(loaded.map((r) => r.image_url)).toEqual([...images].sort());
    } finally {
      await w.close();
    }
  });
});
