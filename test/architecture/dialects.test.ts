import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { filesBelow, PRODUCT_FOLDERS } from "./source-files.js";

// Every SQLite/Postgres difference lives in connectors/warehouse/sqlite/ and
// connectors/warehouse/postgres/ (docs/architecture.md): code elsewhere asks the adapter what the
// database can do, never which one it is. Choosing the dialect from the URL is the one exception.
const PRODUCT = [...PRODUCT_FOLDERS, "pipelines", "apps-script", "scripts"];
const DIALECT_FOLDERS = ["connectors/warehouse/sqlite/", "connectors/warehouse/postgres/"];

/** The lines outside the dialect folders that may name a dialect: url.ts and open.ts choosing it. */
const ALLOWED: Record<string, string[]> = {
  // openWarehouse: the URL's dialect opens in its folder.
  "connectors/warehouse/open.ts": ['if (target.kind === "sqlite") return openSqlite(target, o);'],
  // The URL's target: its server (serverOf) and its printable form (describeWarehouse).
  "connectors/warehouse/url.ts": [
    'return target.kind === "postgres"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: url.ts's line as written
    'if (target.kind === "sqlite") return `sqlite:${target.path}`;',
  ],
};

const NAME = "[\"'`](?:sqlite|postgres(?:ql)?|pg)[\"'`]";
/** A comparison with a dialect's name (either side, or a `case`), or with an adapter's `dialect`. */
const BRANCH = new RegExp(
  [
    `(?:===|!==|==|!=)\\s*${NAME}`,
    `${NAME}\\s*(?:===|!==|==|!=)`,
    `\\bcase\\s+${NAME}`,
    "\\bdialect\\s*(?:===|!==|==|!=)",
    "(?:===|!==|==|!=)\\s*[\\w.]*\\bdialect\\b",
  ].join("|"),
  "i",
);

/** Lines of code that branch on the dialect (comments and JSDoc examples left out). */
function dialectBranches(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => !/^(\/\/|\*|\/\*)/.test(line))
    .filter((line) => BRANCH.test(line));
}

/** Whether a path names a dialect: a folder or file called after SQLite, Postgres or pg. */
function dialectNamed(path: string): boolean {
  const tokens = path.toLowerCase().split(/[^a-z0-9]+/);
  return /sqlite|postgres/i.test(path) || tokens.some((t) => t.startsWith("pg"));
}

const outside = PRODUCT.flatMap(filesBelow).filter((f) => !DIALECT_FOLDERS.some((d) => f.startsWith(d)));

describe("dialects stay in their folders", () => {
  it("no code outside connectors/warehouse/sqlite/ and postgres/ branches on the dialect, but url.ts and open.ts choosing it", () => {
    const found = outside
      .filter((f) => /\.(ts|mjs|js|gs)$/.test(f))
      .flatMap((f) =>
        dialectBranches(readFileSync(f, "utf8"))
          .filter((line) => !ALLOWED[f]?.includes(line))
          .map((line) => `${f}: ${line}`),
      );
    expect(found).toEqual([]);
  });

  it("the allowed lines are still there, so the exception stays exactly as narrow", () => {
    for (const [file, lines] of Object.entries(ALLOWED)) {
      expect(dialectBranches(readFileSync(file, "utf8"))).toEqual(expect.arrayContaining(lines));
    }
  });

  it("no file or folder outside them is named after a dialect", () => {
    expect(outside.filter(dialectNamed)).toEqual([]);
  });

  it("the checks see comparisons either way round, `case`, the adapter's dialect and dialect names, and leave comments alone", () => {
    expect(dialectBranches('  if (target.kind === "postgres") {')).toHaveLength(1);
    expect(dialectBranches("  const x = 'sqlite' !== kind ? a : b;")).toHaveLength(1);
    expect(dialectBranches('    case "sqlite":')).toHaveLength(1);
    expect(dialectBranches("  if (w.adapter.dialect === other.dialect) return;")).toHaveLength(1);
    expect(dialectBranches('  if (kind == "PG") return;')).toHaveLength(1);
    expect(
      dialectBranches(' * @example if (adapter.dialect === "sqlite") …\n  // kind === "postgres"'),
    ).toEqual([]);
    expect(dialectBranches('  dialect: "sqlite",\n  displayName: "Postgres",')).toEqual([]);
    expect(dialectNamed("store/reserve-sqlite.ts")).toBe(true);
    expect(dialectNamed("engine/load/pg-copy.ts")).toBe(true);
    expect(dialectNamed("connectors/postgres/x.ts")).toBe(true);
    expect(dialectNamed("engine/publish/pages.ts")).toBe(false);
    expect(dialectNamed("migrations/012_upgrade.ts")).toBe(false);
  });
});
