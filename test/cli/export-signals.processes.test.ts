import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { sha256Hex } from "../../core/hash.js";
import { migrateToLatest } from "../../store/migrate.js";
import { afterTest } from "../helpers/after-test.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { until } from "../helpers/until.js";
import {
  freshWarehouseUrl,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../helpers/warehouses.js";

/** Rows without end, streamed: the export is still writing when the signal comes. */
const ENDLESS: Record<WarehouseKind, string> = {
  sqlite:
    "with recursive n(i) as (select 1 union all select i + 1 from n) select i, printf('%.200c', 'x') as pad from n",
  postgres:
    "with recursive n(i) as (select 1 union all select i + 1 from n) select i, repeat('x', 200) as pad from n",
};

/** export's temporary name (docs/export.md): `.NAME.PID-HOST-RANDOM.tmp` (no HOST before), or its Parquet scratch. */
const TEMP = /^\.out\.(csv|parquet)\.\d+-(?:[0-9a-f]{6}-)?[0-9a-f]{8}\.tmp(\.csv)?$/;
const HOST_TAG = sha256Hex(hostname()).slice(0, 6);

async function migrated(kind: WarehouseKind): Promise<string> {
  const db = freshWarehouseUrl(kind);
  const w = await openWarehouse(db);
  try {
    await migrateToLatest(w);
  } finally {
    await w.close();
  }
  return db;
}

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-export-signal-"));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function start(args: string[]): { child: ChildProcess; exit: Promise<{ code: number | null; err: string }> } {
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  afterTest(() => child.kill("SIGKILL"));
  let err = "";
  child.stderr!.on("data", (c: Buffer) => {
    err += c.toString();
  });
  child.stdout!.resume();
  const exit = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, err })),
  );
  return { child, exit };
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync export stopped by a signal on ${kind}`, () => {
    for (const [signal, format, code] of [
      ["SIGTERM", "csv", 143],
      ["SIGINT", "parquet", 130],
    ] as const) {
      it(`${signal} while writing ${format}: its temporary file is removed, no target, exit ${code}`, async () => {
        const db = await migrated(kind);
        const dir = folder();
        const out = join(dir, `out.${format}`);
        const { child, exit } = start([
          "export",
          "--sql",
          ENDLESS[kind],
          "--db",
          db,
          "--format",
          format,
          "--out",
          out,
        ]);
        // Written to, not only created: the export is in the middle of its rows.
        const temp = await until(
          async () => readdirSync(dir).find((n) => TEMP.test(n) && statSync(join(dir, n)).size > 100_000),
          60_000,
          "the export's temporary file",
        );
        expect(temp).toMatch(format === "parquet" ? /\.tmp\.csv$/ : /\.tmp$/);
        child.kill(signal);
        const { code: exitCode, err } = await exit;
        expect(err).toMatch(/export of sql interrupted: no file written/);
        expect(exitCode).toBe(code);
        expect(readdirSync(dir)).toEqual([]);
      }, 90_000);
    }
  });
}

/** A pid that ran and ended: its process is gone. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

describe("skillsync export sweeps temporary files that killed exports left", () => {
  it("removes those of a dead pid on this host and those untouched for an hour, and nothing else", async () => {
    const db = await migrated("sqlite");
    const dir = folder();
    const dead = await deadPid();
    const hourAgo = (Date.now() - 61 * 60_000) / 1000;
    const files: Record<string, "swept" | "kept"> = {
      [`.out.csv.${dead}-${HOST_TAG}-0badf00d.tmp`]: "swept",
      [`.big.parquet.${dead}-${HOST_TAG}-0badf00d.tmp.csv`]: "swept",
      // Before the host tag; untouched for an hour.
      [`.old.parquet.${dead}-cafebabe.tmp`]: "swept",
      // A live writer (this test's process), another host's export, and files not export's own.
      [`.live.csv.${process.pid}-${HOST_TAG}-01234567.tmp`]: "kept",
      [`.other.csv.${dead}-${HOST_TAG === "000000" ? "111111" : "000000"}-01234567.tmp`]: "kept",
      [`.old.parquet.${dead}-cafebabe.tmp.fresh`]: "kept",
      ".notes.tmp": "kept",
      "keep.csv": "kept",
    };
    for (const name of Object.keys(files)) writeFileSync(join(dir, name), "x".repeat(1000));
    utimesSync(join(dir, `.old.parquet.${dead}-cafebabe.tmp`), hourAgo, hourAgo);

    const out = join(dir, "out.csv");
    const r = await new Promise<{ code: number; err: string }>((resolve) =>
      execFile(
        process.execPath,
        nodeEntry(
          "cli/run.ts",
          "export",
          "--sql",
          "select 1 as one",
          "--db",
          db,
          "--format",
          "csv",
          "--out",
          out,
        ),
        (e, _o, err) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, err }),
      ),
    );
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/removed 3 temporary file\(s\) of earlier exports that were killed/);
    const left = new Set(readdirSync(dir));
    for (const [name, fate] of Object.entries(files))
      expect([name, left.has(name)]).toEqual([name, fate === "kept"]);
    expect(left.has("out.csv")).toBe(true);
  }, 60_000);
});
