import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What a running `skillsync emulator` process leaves for `emulator stop` and `--detach`. */
export interface EmulatorRecord {
  pid: number;
  port: number;
  host: string;
  url: string;
}

/**
 * One folder per user in the OS temp folder: a record outlives no reboot, as no pid does, and users
 * sharing /tmp do not see each other's.
 */
export function recordFolder(): string {
  return join(tmpdir(), `skillsync-${process.getuid?.() ?? "user"}`);
}

const recordPath = (port: number) => join(recordFolder(), `emulator-${port}.json`);

/** Where a detached emulator's output goes (`--detach`): one file per port, replaced at each start. */
export const emulatorLogPath = (port: number) => join(recordFolder(), `emulator-${port}.log`);

export function ensureRecordFolder(): string {
  const folder = recordFolder();
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}

/** Records the emulator listening on `record.port`; written whole (renamed into place), never half. */
export function recordEmulator(record: EmulatorRecord): void {
  ensureRecordFolder();
  const path = recordPath(record.port);
  const partial = `${path}.${record.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(partial, path);
}

/** The emulator recorded on `port`, if any (a file that does not parse reads as none). */
export function readEmulatorRecord(port: number): EmulatorRecord | undefined {
  return parseRecord(recordPath(port));
}

/** The record a process with this pid wrote (`--detach` waits for its child's). */
export function findEmulatorRecord(pid: number): EmulatorRecord | undefined {
  let names: string[];
  try {
    names = readdirSync(recordFolder());
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (!/^emulator-\d+\.json$/.test(name)) continue;
    const record = parseRecord(join(recordFolder(), name));
    if (record?.pid === pid) return record;
  }
  return undefined;
}

/** Removes the record of `port` if it is still the one of `pid` (a newer emulator may have replaced it). */
export function forgetEmulator(port: number, pid: number): void {
  if (readEmulatorRecord(port)?.pid === pid) rmSync(recordPath(port), { force: true });
}

function parseRecord(path: string): EmulatorRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as Partial<EmulatorRecord>;
    if (typeof r.pid === "number" && typeof r.port === "number" && typeof r.url === "string")
      return { pid: r.pid, port: r.port, host: String(r.host ?? "127.0.0.1"), url: r.url };
  } catch {
    // Not there, or not ours to read.
  }
  return undefined;
}
