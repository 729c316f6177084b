import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type IViolation } from "dependency-cruiser";
import { afterAll, describe, expect, it } from "vitest";

// The rules of .dependency-cruiser.cjs run against a small tree of files written here, so each
// test shows one rule failing on exactly the import it forbids (and passing on an allowed one).
const config = createRequire(import.meta.url)("../../.dependency-cruiser.cjs");
const root = mkdtempSync(join(tmpdir(), "skillsync-rules-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
async function violations(files: Record<string, string>): Promise<IViolation[]> {
  const base = join(root, String(n++));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, file)), { recursive: true });
    writeFileSync(join(base, file), text);
  }
  const folders = [...new Set(Object.keys(files).map((f) => f.split("/")[0]!))];
  const result = await cruise(folders, { ruleSet: config, baseDir: base, validate: true });
  if (typeof result.output === "string") throw new Error(result.output);
  return result.output.summary.violations;
}

const names = (v: IViolation[]) => v.map((x) => `${x.rule.name}: ${x.from} → ${x.to}`);

describe("import rules", () => {
  it("refuse an import up the layers: the store importing the engine", async () => {
    const v = await violations({
      "store/ledger.ts": 'import { run } from "../engine/run/runner.js";\nexport const x = run;\n',
      "engine/run/runner.ts": "export const run = 1;\n",
    });
    expect(names(v)).toEqual(["layer:store: store/ledger.ts → engine/run/runner.ts"]);
  });

  it("refuse a later engine stage imported by an earlier one, and allow the other way", async () => {
    const v = await violations({
      "engine/extract/calls.ts": 'import { m } from "../normalize/mapping.js";\nexport const c = m;\n',
      "engine/normalize/mapping.ts": 'import { p } from "../define/params.js";\nexport const m = p;\n',
      "engine/define/params.ts": "export const p = 1;\n",
    });
    expect(names(v)).toEqual(["layer:engine/extract: engine/extract/calls.ts → engine/normalize/mapping.ts"]);
  });

  it("keep the server and the scheduler apart from each other and from the CLI", async () => {
    const v = await violations({
      "server/routes.ts": 'import { t } from "../scheduler/tick.js";\nexport const r = t;\n',
      "scheduler/tick.ts": 'import { o } from "../cli/output.js";\nexport const t = o;\n',
      "cli/output.ts": "export const o = 1;\n",
    });
    expect(names(v).sort()).toEqual([
      "layer:scheduler: scheduler/tick.ts → cli/output.ts",
      "layer:server: server/routes.ts → scheduler/tick.ts",
    ]);
  });

  it("keep the MCP server off the CLI, the HTTP server and the scheduler; let the CLI import it", async () => {
    const v = await violations({
      "mcp/tools.ts":
        'import { r } from "../server/routes.js";\nimport { t } from "../scheduler/tick.js";\nimport { o } from "../cli/output.js";\nimport { q } from "../engine/publish/query.js";\nexport const m = [r, t, o, q];\n',
      "server/routes.ts": "export const r = 1;\n",
      "scheduler/tick.ts": "export const t = 1;\n",
      "cli/output.ts": "export const o = 1;\n",
      "cli/mcp.ts": 'import { m } from "../mcp/tools.js";\nexport const c = m;\n',
      "engine/publish/query.ts": "export const q = 1;\n",
    });
    expect(names(v).sort()).toEqual([
      "layer:mcp: mcp/tools.ts → cli/output.ts",
      "layer:mcp: mcp/tools.ts → scheduler/tick.ts",
      "layer:mcp: mcp/tools.ts → server/routes.ts",
    ]);
  });

  it("refuse an import circle, even inside one folder", async () => {
    const v = await violations({
      "core/a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
      "core/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    });
    expect(v.map((x) => x.rule.name)).toEqual(["no-circular"]);
  });

  it("let core import nothing of ours, and the emulator only core and schema", async () => {
    const v = await violations({
      "core/errors.ts": 'import { s } from "../schema/catalog.js";\nexport const e = s;\n',
      "schema/catalog.ts": "export const s = 1;\n",
      "emulator/server.ts":
        'import { s } from "../schema/catalog.js";\nimport { l } from "../store/ledger.js";\nexport const x = [s, l];\n',
      "store/ledger.ts": "export const l = 1;\n",
    });
    expect(names(v).sort()).toEqual([
      "layer:core: core/errors.ts → schema/catalog.ts",
      "layer:emulator: emulator/server.ts → store/ledger.ts",
    ]);
  });
});
