import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { registerServeCommand } from "../../cli/commands/serve.js";
import { logFormatOption } from "../../cli/log.js";

const PAGE = fileURLToPath(new URL("../../docs/server.md", import.meta.url));

/** The rows of the page's first table (the flags), each with the flags its first cell names. */
function flagRows(markdown: string): { flags: string[]; row: string }[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith("| flag |"));
  const rows: { flags: string[]; row: string }[] = [];
  for (const row of lines.slice(start + 2)) {
    if (!row.startsWith("|")) break;
    const first = row.split(" | ")[0] ?? "";
    rows.push({ flags: [...first.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!), row });
  }
  return rows;
}

describe("docs/server.md", () => {
  const program = new Command();
  registerServeCommand(program);
  const serve = program.commands.find((c) => c.name() === "serve")!;
  // `--log-format` is global (main.ts), and what the server logs depends on it.
  const options = [...serve.options, logFormatOption()];
  const rows = flagRows(readFileSync(PAGE, "utf8"));

  it("documents every flag of skillsync serve, with its default, and no flag it does not have", () => {
    expect(rows.length).toBeGreaterThan(5);
    for (const o of options) {
      const row = rows.find((r) => r.flags.includes(o.long!));
      expect(row, `${o.long} is not in the flags table of docs/server.md`).toBeDefined();
      if (o.defaultValue !== undefined) expect(row!.row, o.long).toContain(String(o.defaultValue));
    }
    const known = new Set(options.map((o) => o.long));
    for (const r of rows) for (const f of r.flags) expect(known, `${f} in docs/server.md`).toContain(f);
  });
});
