import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { builtinPipelineDir, listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { compileMapping } from "../../engine/normalize/mapping.js";
import { runPipelines } from "../../engine/run/runner.js";
import type { TableDef } from "../../schema/table.js";
import { describePipelines, pipelinesPage } from "../../scripts/pipelines-page.js";
import { rows } from "../engine/fixtures.js";
import { emulatorWithClient } from "../helpers/emulator.js";

const PAGE = join(builtinPipelineDir(), "..", "docs", "pipelines.md");

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

  it("scripts/docs-pipelines.ts --check fails on a stale page; without --check it rewrites it whole", () => {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-docs-"));
    try {
      const file = join(dir, "pipelines.md");
      writeFileSync(file, "# stale\n");
      const script = (...args: string[]) =>
        spawnSync(process.execPath, ["--import", "tsx", "scripts/docs-pipelines.ts", file, ...args], {
          encoding: "utf8",
        });
      const stale = script("--check");
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain("stale");
      expect(readFileSync(file, "utf8")).toBe("# stale\n");
      expect(script().status).toBe(0);
      expect(readFileSync(file, "utf8")).toBe(`# Built-in pipelines\n\n${markdown}\n`);
      expect(script("--check").status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Three tsx processes: on a busy 2-core machine each has taken over 10 s to start.
  }, 120_000);

  it("docs/pipelines.md is the generated page (run: npm run readme)", () => {
    expect(readFileSync(PAGE, "utf8")).toBe(pipelinesPage());
  });
});

describe("pipelines/examples", () => {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-examples-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("ip-tro-check-from-file reads its images from the file beside it into the built-in's tables", async () => {
    const example = loadPipeline(join(builtinPipelineDir(), "examples", "ip-tro-check-from-file.yaml"));
    const own = compileMapping(example.records);
    const builtin = compileMapping(loadPipeline("ip-tro-check").records);
    // Same tables, same columns (names and types; the comments are the built-in's to give): the
    // view of the built-in covers what the example loads.
    const shape = (t: TableDef) => [t.name, t.columns.map((c) => [c.name, c.type])];
    expect([own.table, ...own.children].map(shape)).toEqual([builtin.table, ...builtin.children].map(shape));

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
