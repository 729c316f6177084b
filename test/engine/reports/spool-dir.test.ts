import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { spoolDir, sweepSpoolDirs } from "../../../engine/reports/spool-dir.js";

describe("report spool directories", () => {
  const root = mkdtempSync(join(tmpdir(), "skillsync-spool-root-"));
  afterEach(() => {
    for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("are named with their process, and a later download removes those of processes that are gone", async () => {
    // A pid that ran and exited: what a killed run leaves behind.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    const leftover = join(root, `skillsync-part-${dead}-a1b2c3`);
    mkdirSync(leftover);
    writeFileSync(join(leftover, "part.json.gz"), Buffer.alloc(1024));
    const mine = await spoolDir(root);
    expect(mine).toContain(`skillsync-part-${process.pid}-`);
    // The parent process (vitest's) is alive: its directory stays. Foreign names stay too.
    mkdirSync(join(root, `skillsync-part-${process.ppid}-d4e5f6`));
    mkdirSync(join(root, "skillsync-part-xyz123"));
    mkdirSync(join(root, "something-else"));

    expect(await sweepSpoolDirs(root)).toEqual([`skillsync-part-${dead}-a1b2c3`]);
    expect(readdirSync(root).sort()).toEqual(
      [
        mine.slice(root.length + 1),
        `skillsync-part-${process.ppid}-d4e5f6`,
        "skillsync-part-xyz123",
        "something-else",
      ].sort(),
    );
  });
});
