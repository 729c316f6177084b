import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Writes a pipeline file into a fresh temp folder, with any files beside it (lists, SQL), and
 * returns its path.
 */
export function writePipelineFile(
  yaml: string,
  beside: Record<string, string> = {},
  name = "p.yaml",
): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-pl-"));
  for (const [file, content] of Object.entries(beside)) writeFileSync(join(dir, file), content);
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}
