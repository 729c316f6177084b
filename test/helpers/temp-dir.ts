import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterTest } from "./after-test.js";

/**
 * A fresh folder under the system's temporary folder (`skillsync-<tag>-…`), removed with all it
 * holds after the current test: tests leave no file behind.
 *
 * @example const dir = tempDir("export"); writeFileSync(join(dir, "kw.csv"), "…");
 */
export function tempDir(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `skillsync-${tag}-`));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
