import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The folders of product code the architecture tests read (tests, bench and docs aside). */
export const PRODUCT_FOLDERS = [
  "core",
  "schema",
  "connectors",
  "migrations",
  "store",
  "engine",
  "server",
  "scheduler",
  "mcp",
  "cli",
  "emulator",
];

/** Every file below `dir`, as a path from the repository's root with `/` between folders. */
export function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesBelow(join(dir, e.name)) : [join(dir, e.name).replaceAll("\\", "/")],
  );
}

/** The TypeScript sources below `dir` (declaration files aside). */
export const typescriptBelow = (dir: string): string[] =>
  filesBelow(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
