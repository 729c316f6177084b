import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { sha256Hex } from "../../core/hash.js";
import { pidState } from "../../core/pid-state.js";

/**
 * A short tag of this host in temporary names: a pid means something only on the host that wrote
 * it, and a folder may be shared (NFS) by exports on several hosts.
 */
const HOST_TAG = sha256Hex(hostname()).slice(0, 6);

/**
 * The temporary files an export writes (`.NAME.PID-HOST-RANDOM.tmp`, and the Parquet writer's
 * scratch `….tmp.csv`); names from before the host tag (`.NAME.PID-RANDOM.tmp`) too.
 */
const TEMP_NAME = /^\..+\.(\d+)-(?:([0-9a-f]{6})-)?[0-9a-f]{8}\.tmp(?:\.csv)?$/;

/**
 * A temporary file untouched this long is swept whoever wrote it (a pid now taken by another
 * process, another host's export). A live export touches its file with every batch; the one pause
 * is the Parquet conversion, which leaves the scratch file alone for about 14 s per million rows.
 */
const ABANDONED_MS = 60 * 60_000;

/** This process's temporary files still being written: removed at once when it must quit now. */
const live = new Set<string>();

/** The Parquet writer's scratch CSV beside the file it converts (docs/export.md). */
export const scratchOf = (path: string): string => `${path}.csv`;

/**
 * A fresh hidden temporary name beside `target`, its writer's pid and host in the name so that a
 * later export can tell a leftover of a killed process; held as this process's until `release`.
 *
 * @example const temp = holdTempFile("/data/bib.parquet") // "/data/.bib.parquet.4242-9f3a1c-0b1c2d3e.tmp"
 */
export function holdTempFile(target: string): string {
  const name = `.${basename(target)}.${process.pid}-${HOST_TAG}-${randomBytes(4).toString("hex")}.tmp`;
  const temp = join(dirname(target), name);
  live.add(temp);
  return temp;
}

/** The temporary file is renamed or removed: no longer this process's to clean up. */
export function releaseTempFile(temp: string): void {
  live.delete(temp);
}

/**
 * Removes this process's temporary files (and scratch files) synchronously, for a process that
 * quits without waiting for its export to stop (a second Ctrl-C).
 */
export function removeTempFilesNow(): void {
  for (const temp of live) {
    for (const path of [temp, scratchOf(temp)]) rmSync(path, { force: true });
  }
  live.clear();
}

/**
 * Removes the temporary files of exports that can no longer finish from `dir`: those written on
 * this host by a pid that no longer runs (an export killed with SIGKILL cannot remove its own, and
 * one was 1.86 GB), and any untouched for an hour. Only names of export's own pattern are looked
 * at; a file that cannot be removed is left. Returns the names removed.
 */
export async function sweepStaleTempFiles(dir: string, now = Date.now()): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const swept: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    if (live.has(path) || live.has(path.replace(/\.csv$/, ""))) continue;
    if (!(await abandoned(path, Number(m[1]), m[2], now))) continue;
    try {
      await rm(path);
      swept.push(name);
    } catch {
      // Gone already (another export swept it) or not ours to remove: left alone.
    }
  }
  return swept;
}

async function abandoned(path: string, pid: number, host: string | undefined, now: number): Promise<boolean> {
  if (host === HOST_TAG && pid !== process.pid && pidState(pid) === "gone") return true;
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true && now - info.mtimeMs >= ABANDONED_MS;
}
