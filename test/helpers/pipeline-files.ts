import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folders written and not yet removed: files are also written at a test file's top level. */
const written = new Set<string>();

/**
 * Writes a pipeline file into a fresh temp folder, with any files beside it (lists, SQL), and
 * returns its path. The folder goes after the test file's last test (test/setup.ts).
 */
export function writePipelineFile(
  yaml: string,
  beside: Record<string, string> = {},
  name = "p.yaml",
): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-pl-"));
  written.add(dir);
  for (const [file, content] of Object.entries(beside)) writeFileSync(join(dir, file), content);
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

/** Removes every folder `writePipelineFile` wrote so far. */
export function removeWrittenPipelineFiles(): void {
  for (const dir of written) rmSync(dir, { recursive: true, force: true });
  written.clear();
}

/** Writes a price file (docs/pricing.md) into a fresh temp folder, which goes as pipeline files' do. */
export function writePriceFile(text: string): string {
  return writePipelineFile(text, {}, "prices.yaml");
}
