import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import type SQLite from "better-sqlite3";
import { ValidationError } from "../../../core/errors.js";
import { type ReadMeasure, RowCap } from "../read-cap.js";
import { type DialectReadOptions, ReadTimeoutError } from "../read-timeout.js";

/**
 * The reader: a child process with its own read-only connection to the warehouse file. Statements
 * run there one at a time; one that passes its time limit ends the whole process with SIGKILL, and
 * the next read starts a new one. A process, not a worker thread: better-sqlite3 is synchronous and
 * a statement such as `select count(*)` over an endless recursive CTE never returns to JavaScript,
 * so a worker thread asked to terminate would keep the CPU busy for ever. Inside the reader a
 * watchdog thread kills the process at the statement's deadline (plus a second) or when its parent
 * is gone, so no reader outlives a killed `skillsync`. Plain JavaScript, evaluated with `node -e`,
 * so it runs the same from the TypeScript sources and from the build.
 */
const READER_SOURCE = `
const { Worker } = require("node:worker_threads");
const Database = require(process.env.SKILLSYNC_READER_DRIVER);
// RowCap's source as the running code has it (tsx names functions with __name; a no-op here).
const __name = (target) => target;
const RowCap = ${RowCap.toString()};
const parent = process.ppid;
const watchdog = new Worker(
  "const { parentPort, workerData } = require('node:worker_threads');" +
  "let timer;" +
  "setInterval(() => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); }, 500);" +
  "parentPort.on('message', (ms) => { clearTimeout(timer); if (ms > 0) timer = setTimeout(() => process.kill(process.pid, 'SIGKILL'), ms); });",
  { eval: true, workerData: { parent } },
);
watchdog.unref();
const db = new Database(process.env.SKILLSYNC_READER_PATH, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma("query_only = 1");
db.pragma("trusted_schema = 0");
process.on("disconnect", () => process.exit(0));
process.on("message", (m) => {
  watchdog.postMessage(m.timeoutMs + 1000);
  try {
    const stmt = db.prepare(m.text);
    if (m.exactIntegers) stmt.safeIntegers(true);
    if (!stmt.readonly) throw new Error("is not a read: SQLite reports that the statement would change the database");
    if (!stmt.reader) {
      stmt.run(...m.params);
      process.send({ id: m.id, rows: [] });
      return;
    }
    // Cells cut and the answer bounded here, row by row, so no more than that crosses to the parent.
    const cap = new RowCap({ maxBytes: m.maxBytes, maxCellBytes: m.maxCellBytes, cutAt: m.cutAt });
    for (const row of stmt.iterate(...m.params)) {
      if (m.cutAt === undefined && cap.rows.length >= m.maxRows) throw new Error("returned more than " + m.maxRows + " rows; add a LIMIT");
      if (!cap.add(row)) break;
    }
    process.send({ id: m.id, rows: cap.rows, measure: cap.measure() });
  } catch (err) {
    process.send({ id: m.id, error: String((err && err.message) || err) });
  } finally {
    watchdog.postMessage(0);
  }
});
`;

const driver = createRequire(import.meta.url).resolve("better-sqlite3");

interface Answer {
  rows: Record<string, unknown>[];
  measure?: ReadMeasure | undefined;
}

interface Pending {
  resolve(answer: Answer): void;
  reject(err: Error): void;
}

interface Reader {
  child: ChildProcess;
  pending: Map<number, Pending>;
  idle: NodeJS.Timeout | undefined;
  exited: Promise<void>;
}

/** Idle readers end themselves after this long. */
const IDLE_MS = 5_000;

const readers = new Map<string, Reader>();
let nextId = 1;

function endReader(path: string, r: Reader, why: Error): Promise<void> {
  if (readers.get(path) === r) readers.delete(path);
  if (r.idle) clearTimeout(r.idle);
  for (const p of r.pending.values()) p.reject(why);
  r.pending.clear();
  if (r.child.exitCode === null && r.child.signalCode === null) {
    // Referenced again, so that whoever waits for the exit is not left with an empty event loop.
    r.child.ref();
    r.child.kill("SIGKILL");
  }
  return r.exited;
}

function reader(path: string): Reader {
  const existing = readers.get(path);
  if (existing) return existing;
  const child = spawn(process.execPath, ["-e", READER_SOURCE], {
    stdio: ["ignore", "ignore", "ignore", "ipc"],
    serialization: "advanced",
    env: { ...process.env, SKILLSYNC_READER_DRIVER: driver, SKILLSYNC_READER_PATH: path },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const r: Reader = { child, pending: new Map(), idle: undefined, exited };
  child.on("message", (m: { id: number; rows?: Answer["rows"]; measure?: ReadMeasure; error?: string }) => {
    const p = r.pending.get(m.id);
    if (!p) return;
    r.pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve({ rows: m.rows ?? [], measure: m.measure });
    settle(path, r);
  });
  child.on("error", (err) => void endReader(path, r, err));
  child.on("exit", (code, signal) => {
    const why = code === 0 || signal === "SIGKILL" ? "" : ` (exit ${code ?? signal})`;
    void endReader(path, r, new Error(`the SQLite reader stopped${why}`));
  });
  readers.set(path, r);
  return r;
}

/** Keeps the process alive only while reads are pending; ends the reader when it stays idle. */
function settle(path: string, r: Reader): void {
  if (r.idle) clearTimeout(r.idle);
  r.idle = undefined;
  const channel = r.child.channel as { ref(): void; unref(): void } | null | undefined;
  if (r.pending.size > 0) {
    r.child.ref();
    channel?.ref();
    return;
  }
  r.child.unref();
  channel?.unref();
  r.idle = setTimeout(() => void endReader(path, r, new Error("idle")), IDLE_MS);
  r.idle.unref();
}

/** Ends every SQLite reader (or the one of a file), and waits until they are gone. */
export async function closeSqliteReaders(path?: string): Promise<void> {
  const ending: Promise<void>[] = [];
  for (const [p, r] of [...readers]) {
    if (path === undefined || p === path) ending.push(endReader(p, r, new Error("closed")));
  }
  await Promise.all(ending);
}

/**
 * One read on SQLite, in the reader process of the file. An in-memory warehouse has no file a
 * second connection could open: its reads run on the warehouse's own connection with
 * `Statement.readonly` required and query_only on, without a time limit.
 */
export async function sqliteReadOnly(
  database: SQLite.Database,
  path: string,
  text: string,
  o: DialectReadOptions,
): Promise<Record<string, unknown>[]> {
  const fail = (message: string): never => {
    throw new ValidationError(o.source, [{ path: [], message }]);
  };
  if (path === ":memory:" || path === "") return inProcess(database, text, o, fail);
  const r = reader(path);
  const id = nextId++;
  const answer = new Promise<Answer>((resolve, reject) => {
    r.pending.set(id, { resolve, reject });
  });
  settle(path, r);
  r.child.send({
    id,
    text,
    params: [...o.params],
    maxRows: o.maxRows,
    cutAt: o.cutAt,
    maxBytes: o.maxBytes,
    maxCellBytes: o.maxCellBytes,
    timeoutMs: o.timeoutMs,
    exactIntegers: o.exactIntegers,
  });
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new ReadTimeoutError(o.timeoutMs, o.source);
      reject(err);
      void endReader(path, r, err);
    }, o.timeoutMs);
  });
  try {
    const a = await Promise.race([answer, limit]);
    if (a.measure) o.onMeasure?.(a.measure);
    return a.rows;
  } catch (err) {
    if (err instanceof ReadTimeoutError) throw err;
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The statement prepared, refused unless SQLite says it only reads. A statement of its own (prepare
 * never reuses one), so `safeIntegers` does not stick to others.
 */
export function preparedRead(
  database: SQLite.Database,
  text: string,
  exactIntegers: boolean | undefined,
  fail: (message: string) => never,
): SQLite.Statement {
  let stmt: SQLite.Statement;
  try {
    stmt = database.prepare(text);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  if (!stmt.readonly) fail("is not a read: SQLite reports that the statement would change the database");
  if (exactIntegers) stmt.safeIntegers(true);
  return stmt;
}

function inProcess(
  database: SQLite.Database,
  text: string,
  o: DialectReadOptions,
  fail: (message: string) => never,
): Record<string, unknown>[] {
  const stmt = preparedRead(database, text, o.exactIntegers, fail);
  database.pragma("query_only = 1");
  try {
    if (!stmt.reader) {
      stmt.run(...o.params);
      return [];
    }
    const cap = new RowCap({ maxBytes: o.maxBytes, maxCellBytes: o.maxCellBytes, cutAt: o.cutAt });
    for (const row of stmt.iterate(...o.params) as Iterable<Record<string, unknown>>) {
      if (o.cutAt === undefined && cap.rows.length >= o.maxRows) {
        fail(`returned more than ${o.maxRows} rows; add a LIMIT`);
      }
      if (!cap.add(row)) break;
    }
    o.onMeasure?.(cap.measure());
    return cap.rows;
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    database.pragma("query_only = 0");
  }
}
