import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import type SQLite from "better-sqlite3";
import { ValidationError } from "../../../core/errors.js";
import { type BatchReadDialectOptions, ReadTimeoutError, type ResultColumn } from "../read-timeout.js";
import { preparedRead } from "./read-only.js";

/**
 * A read in batches (`skillsync export`): a reader process of its own (as sqlite/read-only.ts, a
 * read-only connection with query_only, `Statement.readonly` required), which iterates the
 * statement and sends one batch of rows per request. The parent asks for the next batch as soon as
 * one arrives, so reading and writing overlap while at most two batches are held. A watchdog
 * thread ends the process when its parent is gone (a statement stuck in SQLite never returns to
 * JavaScript); the parent kills it when the time limit passes or the read ends early. A small young
 * generation (--max-semi-space-size=1) keeps the garbage of a million rows' batches from piling up
 * (120 → 90 MB of RSS reading a million wide rows, for 10% more time).
 */
const BATCH_READER_SOURCE = `
const { Worker } = require("node:worker_threads");
const Database = require(process.env.SKILLSYNC_READER_DRIVER);
const watchdog = new Worker(
  "const { workerData } = require('node:worker_threads');" +
  "setInterval(() => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); }, 500);",
  { eval: true, workerData: { parent: process.ppid } },
);
watchdog.unref();
process.on("disconnect", () => process.exit(0));
let rows;
process.on("message", (m) => {
  try {
    if (!rows) {
      const db = new Database(process.env.SKILLSYNC_READER_PATH, { readonly: true, fileMustExist: true });
      db.pragma("busy_timeout = 5000");
      db.pragma("query_only = 1");
      db.pragma("trusted_schema = 0");
      const stmt = db.prepare(m.text);
      if (m.exactIntegers) stmt.safeIntegers(true);
      if (!stmt.readonly) throw new Error("is not a read: SQLite reports that the statement would change the database");
      if (!stmt.reader) throw new Error("returns no rows");
      stmt.raw(true);
      rows = stmt.iterate(...m.params);
      process.send({ columns: stmt.columns().map((c) => ({ name: c.name, declared: c.type })) });
    }
    const batch = [];
    while (batch.length < m.batchRows) {
      const next = rows.next();
      if (next.done) {
        process.send({ rows: batch, done: true });
        return;
      }
      batch.push(next.value);
    }
    process.send({ rows: batch, done: false });
  } catch (err) {
    process.send({ error: String((err && err.message) || err) });
  }
});
`;

/** A column's declared type as SQLite keeps it (integer, real, text: the rest cannot be told). */
function resultColumn(c: { name: string; declared: string | null }): ResultColumn {
  const declared = (c.declared ?? "").toLowerCase();
  const type =
    declared === "integer"
      ? "integer"
      : declared === "real"
        ? "number"
        : declared === "numeric"
          ? "decimal"
          : declared === "text"
            ? "text"
            : undefined;
  return { name: c.name, type };
}

const driver = createRequire(import.meta.url).resolve("better-sqlite3");

interface Message {
  columns?: { name: string; declared: string | null }[];
  rows?: unknown[][];
  done?: boolean;
  error?: string;
}

/**
 * One read in batches on SQLite. An in-memory warehouse has no file a second connection could
 * open: its statement is iterated on the warehouse's own connection (query_only, `readonly`
 * required), without a time limit.
 */
export async function sqliteReadBatches(
  database: SQLite.Database,
  path: string,
  text: string,
  o: BatchReadDialectOptions,
): Promise<number> {
  const fail = (message: string): never => {
    throw new ValidationError(o.source, [{ path: [], message }]);
  };
  if (path === ":memory:" || path === "") return inProcess(database, text, o, fail);
  const reader = startBatchReader(path);
  const limit = timeLimit(o.timeoutMs, o.source);
  try {
    return await readBatches(reader, limit.reached, text, o, fail);
  } finally {
    limit.clear();
    if (reader.child.exitCode === null && reader.child.signalCode === null) reader.child.kill("SIGKILL");
    await reader.exited;
  }
}

/** The reader process of one read, and its messages in the order they arrive. */
interface BatchReader {
  child: ChildProcess;
  /** The next message (an exit or error of the process as one too). */
  next(): Promise<Message>;
  exited: Promise<void>;
}

function startBatchReader(path: string): BatchReader {
  const child = spawn(process.execPath, ["--max-semi-space-size=1", "-e", BATCH_READER_SOURCE], {
    stdio: ["ignore", "ignore", "ignore", "ipc"],
    serialization: "advanced",
    env: { ...process.env, SKILLSYNC_READER_DRIVER: driver, SKILLSYNC_READER_PATH: path },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Batches as they arrive, and whoever waits for the next one.
  const queue: Message[] = [];
  let waiting: ((m: Message) => void) | undefined;
  const deliver = (m: Message) => {
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w(m);
    } else queue.push(m);
  };
  child.on("message", (m: Message) => deliver(m));
  child.on("exit", (code, signal) =>
    deliver({ error: `the SQLite reader stopped (exit ${code ?? signal})` }),
  );
  child.on("error", (err) => deliver({ error: err.message }));
  const next = () =>
    queue.length ? Promise.resolve(queue.shift()!) : new Promise<Message>((r) => (waiting = r));
  return { child, next, exited };
}

/** A promise rejected with a ReadTimeoutError once `timeoutMs` pass (undefined: no limit). */
function timeLimit(
  timeoutMs: number | undefined,
  source: string,
): { reached: Promise<never> | undefined; clear(): void } {
  if (timeoutMs === undefined) return { reached: undefined, clear: () => {} };
  let timer: NodeJS.Timeout | undefined;
  const reached = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReadTimeoutError(timeoutMs, source)), timeoutMs);
  });
  return { reached, clear: () => clearTimeout(timer) };
}

/** Asks the reader for the statement's batches, one ahead, handing each to `onBatch`; the rows read. */
async function readBatches(
  reader: BatchReader,
  limit: Promise<never> | undefined,
  text: string,
  o: BatchReadDialectOptions,
  fail: (message: string) => never,
): Promise<number> {
  const ask = (first: boolean) =>
    reader.child.send(
      first
        ? { text, params: [...o.params], batchRows: o.batchRows, exactIntegers: o.exactIntegers }
        : { batchRows: o.batchRows },
    );
  let total = 0;
  ask(true);
  for (;;) {
    const m = limit ? await Promise.race([reader.next(), limit]) : await reader.next();
    if (m.error !== undefined) return fail(m.error);
    if (m.columns) {
      await o.onColumns?.(m.columns.map(resultColumn));
      continue;
    }
    // The next batch is read while this one is written.
    if (!m.done) ask(false);
    const rows = m.rows ?? [];
    total += rows.length;
    if (rows.length) await o.onBatch(rows);
    if (m.done) return total;
  }
}

async function inProcess(
  database: SQLite.Database,
  text: string,
  o: BatchReadDialectOptions,
  fail: (message: string) => never,
): Promise<number> {
  const stmt = preparedRead(database, text, o.exactIntegers, fail);
  if (!stmt.reader) fail("returns no rows");
  stmt.raw(true);
  await o.onColumns?.(stmt.columns().map((c) => resultColumn({ name: c.name, declared: c.type })));
  // The rows of one batch are taken before query_only is lifted, and nothing else runs meanwhile:
  // the iterator holds the connection until it is done.
  let total = 0;
  let batch: unknown[][] = [];
  for (const row of stmt.iterate(...o.params) as Iterable<unknown[]>) {
    batch.push(row);
    if (batch.length >= o.batchRows) {
      total += batch.length;
      await o.onBatch(batch);
      batch = [];
    }
  }
  if (batch.length) {
    total += batch.length;
    await o.onBatch(batch);
  }
  return total;
}
