import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidState } from "../../core/pid-state.js";

const PREFIX = "skillsync-part-";

// A pid taken by a process of another user counts as alive: its folder is left alone.
const alive = (pid: number) => pidState(pid) !== "gone";

/**
 * Removes the spool directories of processes that no longer run (a killed run cannot remove its
 * own; a report part's spool can be tens of MB). The owner's pid is in the name; a directory of a
 * live process, or of a pid now taken by another process, is left alone.
 */
export async function sweepSpoolDirs(root = tmpdir()): Promise<string[]> {
  const names = await readdir(root).catch(() => [] as string[]);
  const gone: string[] = [];
  for (const name of names) {
    const pid = Number(/^skillsync-part-(\d+)-/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true }).catch(() => {});
    gone.push(name);
  }
  return gone;
}

/** A fresh spool directory of this process, named with its pid so a later run can sweep it. */
export function spoolDir(root = tmpdir()): Promise<string> {
  return mkdtemp(join(root, `${PREFIX}${process.pid}-`));
}
