import { readConfig } from "../../core/env-config.js";
import { ValidationError } from "../../core/errors.js";
import type { SqlLexicon } from "./adapter.js";
import type { Warehouse } from "./open.js";
import type { ReadMeasure } from "./read-cap.js";
import { type ReaderLoginSource, ReadTimeoutError, type ResultColumn } from "./read-timeout.js";

export type { ResultColumn };
export { ReadTimeoutError };

/**
 * The one read-only path: every piece of SQL a user (or a pipeline file, or an agent) hands us to
 * read the warehouse runs through `readOnly` — `skillsync sql`, the server's table views, a
 * pipeline's input `sql:`, `sheets push --sql`. Its guarantees (docs/read-only.md):
 *
 * - exactly one statement, and it must be a read: its first keyword is SELECT, WITH, VALUES,
 *   TABLE or EXPLAIN (not EXPLAIN ANALYZE), or (SQLite) a PRAGMA from a short read-only list;
 * - no server-side functions with effects outside the statement (COPY, large objects, server
 *   files, advisory locks, NOTIFY, backend signals, configuration reloads…);
 * - SQLite: a separate read-only connection in a reader process, `Statement.readonly` required, the
 *   process killed when the time limit passes (an endless recursive CTE cannot be interrupted
 *   otherwise: better-sqlite3 is synchronous, and a worker thread stuck in SQLite cannot be ended);
 * - Postgres: a connection of its own in a READ ONLY transaction that is always rolled back (the
 *   statement is sent with the extended protocol, so it cannot end the transaction or add a second
 *   statement), `statement_timeout`, `lock_timeout`, the backend cancelled from another connection
 *   when the client gives up, and the connection closed afterwards (no session state survives).
 */
export interface ReadOnlyOptions {
  /** Bound parameters (`?` on SQLite, `$1…` on Postgres). */
  params?: readonly unknown[];
  /** Time limit for the statement, ms (default 30 s, or SKILLSYNC_SQL_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Largest number of rows returned (default 1 000 000); more is an error, not a silent cut. */
  maxRows?: number;
  /** Stop reading after this many rows and one more (the caller says the result was cut). */
  cutAt?: number;
  /** Where the SQL came from, for messages ("SQL query", "pipeline file x input sql"…). */
  source?: string;
  /**
   * Read integers exactly: the rest of skillsync reads them as numbers, right for counts and
   * credits, but 9007199254740993 would arrive as 9007199254740992 (Sheets pushes ask for this).
   */
  exactIntegers?: boolean;
  /**
   * Bound the answer in bytes (connectors/warehouse/read-cap.ts): stop reading before the row that
   * would take the rows past `maxBytes` as JSON (the first row always comes), and cut each cell
   * longer than `maxCellBytes`, marked. Rows stream in (a Postgres cursor, the SQLite reader
   * iterating), so a hostile statement is never held whole. `onMeasure` hears what was cut.
   */
  maxBytes?: number | undefined;
  maxCellBytes?: number | undefined;
  onMeasure?: ((m: ReadMeasure) => void) | undefined;
  /**
   * Postgres: the login to read as when `--read-db` named none (store/reader-login.ts resolves
   * it); the statement never runs in the owner's session unless that login can only read.
   */
  login?: ReaderLoginSource;
}

const DEFAULT_READ_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_ROWS = 1_000_000;

const FIRST_WORDS = new Set(["select", "with", "values", "table", "explain"]);

/**
 * Functions whose effects reach past the statement (or past the database), refused by name on
 * both databases: a least-privilege role (docs/read-only.md) is the real fence, this is the
 * belt for users who connect as the owner or a superuser.
 */
const REFUSED_FUNCTIONS: RegExp[] = [
  /^pg_(terminate|cancel)_backend$/,
  /^pg_(reload_conf|rotate_logfile|switch_wal|switch_xlog|promote|create_restore_point)$/,
  /^pg_(start|stop|backup_start|backup_stop)_backup$|^pg_backup_(start|stop)$/,
  /^pg_wal_replay_(pause|resume)$/,
  /^pg_stat(_statements)?_reset/,
  /^pg_(try_)?advisory_/,
  /^pg_(logical_emit_message|notify|import_system_collations|log_backend_memory_contexts)$/,
  /^pg_(read_file|read_binary_file|stat_file|file_write|file_rename|file_unlink|file_sync)$/,
  /^pg_ls_/,
  /^pg_(create|drop|copy)_\w*replication_slot$|^pg_replication_(origin|slot)_/,
  /^(lo_\w+|loread|lowrite)$/,
  /^dblink/,
  /^(set_config|nextval|setval|load_extension)$/,
];

// SELECT … INTO makes a table on Postgres (the READ ONLY transaction refuses it too).
const REFUSED_WORDS = new Set(["into"]);

export interface CheckedStatement {
  /** The statement without trailing semicolons. */
  text: string;
  firstWord: string;
}

interface Scan {
  words: string[];
  /** Semicolons outside strings and comments, with what follows each. */
  tailAfterSemicolon: string[];
  unterminated: boolean;
}

/** Where a scanned token never ends (a string, quoted name or comment left open). */
const UNTERMINATED = -1;

const DOLLAR_TAG = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;

/** Words (keywords and identifiers, quoted ones unquoted) outside strings and comments. */
function scan(text: string, lexicon: SqlLexicon): Scan {
  const s: Scan = { words: [], tailAfterSemicolon: [], unterminated: false };
  for (let i = 0; i < text.length; ) {
    i = scanToken(text, i, lexicon, s);
    if (i === UNTERMINATED) return { ...s, unterminated: true };
  }
  return s;
}

/**
 * Reads the token at `i` — a comment, a string, a quoted name, a word, a `;` or any other
 * character — keeping its word or what follows its semicolon in `s`; returns where it ends.
 */
function scanToken(text: string, i: number, lexicon: SqlLexicon, s: Scan): number {
  const c = text[i]!;
  const next = text[i + 1];
  if (c === "-" && next === "-") {
    const end = text.indexOf("\n", i);
    return end < 0 ? text.length : end + 1;
  }
  if (c === "/" && next === "*") return pastBlockComment(text, i, lexicon.nestedComments);
  if (c === "'")
    return pastString(text, i, lexicon.escapeStrings && /[eE]$/.test(text.slice(Math.max(0, i - 1), i)));
  const close = lexicon.identifierQuotes.get(c);
  if (close !== undefined) return pastQuotedName(text, i, close, s.words);
  const tag = c === "$" && lexicon.dollarQuotes ? DOLLAR_TAG.exec(text.slice(i))?.[0] : undefined;
  if (tag !== undefined) {
    const end = text.indexOf(tag, i + tag.length);
    return end < 0 ? UNTERMINATED : end + tag.length;
  }
  if (c === ";") {
    s.tailAfterSemicolon.push(text.slice(i + 1));
    return i + 1;
  }
  if (!/[A-Za-z_\u0080-\uffff]/.test(c)) return i + 1;
  let j = i + 1;
  while (j < text.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(text[j]!)) j++;
  s.words.push(text.slice(i, j).toLowerCase());
  return j;
}

/** Past the block comment opening at `i`: Postgres nests them, SQLite does not. */
function pastBlockComment(text: string, i: number, nested: boolean): number {
  let depth = 1;
  let at = i + 2;
  while (at < text.length && depth > 0) {
    if (text[at] === "*" && text[at + 1] === "/") {
      depth--;
      at += 2;
    } else if (nested && text[at] === "/" && text[at + 1] === "*") {
      depth++;
      at += 2;
    } else at++;
  }
  return depth > 0 ? UNTERMINATED : at;
}

/** Past the string opening at `i` (`''` inside it; `\'` too where it takes backslash escapes). */
function pastString(text: string, i: number, escapes: boolean): number {
  let at = i + 1;
  for (;;) {
    if (at >= text.length) return UNTERMINATED;
    if (escapes && text[at] === "\\") at += 2;
    else if (text[at] === "'" && text[at + 1] === "'") at += 2;
    else if (text[at] === "'") return at + 1;
    else at++;
  }
}

/**
 * Past the quoted name opening at `i`, closed by `close` (doubled, it stands for itself where it
 * also opens the name), its unquoted word kept in `words`.
 */
function pastQuotedName(text: string, i: number, close: string, words: string[]): number {
  const doubles = text[i] === close;
  let word = "";
  let at = i + 1;
  for (;;) {
    if (at >= text.length) return UNTERMINATED;
    if (doubles && text[at] === close && text[at + 1] === close) {
      word += close;
      at += 2;
    } else if (text[at] === close) break;
    else word += text[at++];
  }
  words.push(word.toLowerCase());
  return at + 1;
}

const onlyComments = (text: string, lexicon: SqlLexicon) =>
  scan(text, lexicon).words.length === 0 && !/[^\s;]/.test(stripComments(text));

function stripComments(text: string): string {
  return text.replace(/--[^\n]*(\n|$)/g, " ").replace(/\/\*[\s\S]*?\*\//g, " ");
}

function refuse(source: string, message: string): never {
  throw new ValidationError(source, [{ path: [], message }]);
}

/**
 * Refuses, before anything reaches the database, what cannot be a single read. The databases
 * check again (SQLite's `Statement.readonly`, Postgres's READ ONLY transaction): this check is what
 * gives a clear message, theirs is what cannot be talked around.
 *
 * @example checkReadStatement("select 1;", w.adapter.lexicon).text // "select 1"
 */
export function checkReadStatement(
  text: string,
  lexicon: SqlLexicon,
  source = "SQL query",
): CheckedStatement {
  if (text.includes("\0")) refuse(source, "contains a NUL byte");
  const s = scan(text, lexicon);
  if (s.unterminated) refuse(source, "has an unterminated string, identifier or comment");
  if (s.tailAfterSemicolon.some((tail) => !onlyComments(tail, lexicon))) {
    refuse(source, "must be exactly one statement (found a `;` followed by more)");
  }
  const firstWord = s.words[0];
  if (firstWord === undefined) refuse(source, "is empty");
  const readPragmas = lexicon.readPragmas;
  const pragma = readPragmas !== undefined && firstWord === "pragma";
  if (!FIRST_WORDS.has(firstWord) && !pragma) {
    refuse(
      source,
      `must be a read (SELECT, WITH, VALUES, TABLE or EXPLAIN): "${firstWord.slice(0, 40).toUpperCase()}" is refused on the read-only path`,
    );
  }
  if (firstWord === "explain" && s.words.slice(1, 4).includes("analyze")) {
    refuse(source, "EXPLAIN ANALYZE runs the statement; use EXPLAIN without ANALYZE");
  }
  if (pragma) {
    const name = s.words[1] === "main" ? s.words[2] : s.words[1];
    if (!name || !readPragmas.has(name) || stripComments(text).includes("=")) {
      refuse(
        source,
        `PRAGMA ${name ?? ""} is refused: only ${[...readPragmas].join(", ")}, without "=", may be read`,
      );
    }
  }
  for (const w of s.words) {
    if (REFUSED_WORDS.has(w)) refuse(source, `${w.toUpperCase()} is refused in a read-only statement`);
    if (REFUSED_FUNCTIONS.some((re) => re.test(w)))
      refuse(source, `${w}() is refused in a read-only statement`);
  }
  return { text: text.replace(/[\s;]+$/, ""), firstWord };
}

/**
 * Runs one read-only statement and returns its rows (see the module comment for the guarantees).
 *
 * @example await readOnly(w, "select count(*) as n from skillsync_runs") // [{ n: 3 }]
 */
export async function readOnly(
  w: Warehouse,
  text: string,
  o: ReadOnlyOptions = {},
): Promise<Record<string, unknown>[]> {
  const source = o.source ?? "SQL query";
  const checked = checkReadStatement(text, w.adapter.lexicon, source);
  const timeoutMs = o.timeoutMs ?? readConfig().sqlTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const opts = {
    params: o.params ?? [],
    timeoutMs,
    maxRows: o.maxRows ?? DEFAULT_MAX_ROWS,
    cutAt: o.cutAt,
    source,
    exactIntegers: o.exactIntegers === true,
    maxBytes: o.maxBytes,
    maxCellBytes: o.maxCellBytes,
    onMeasure: o.onMeasure,
  };
  return w.readPath.rows(checked.text, opts, o.login);
}

export interface BatchReadOptions {
  params?: readonly unknown[];
  /** Time limit for the whole read, ms; undefined: none (an export of millions of rows may take minutes). */
  timeoutMs?: number | undefined;
  /** Rows per batch (default 10 000). */
  batchRows?: number;
  source?: string;
  /** Integers exactly (as `ReadOnlyOptions.exactIntegers`): SQLite gives every integer as a BigInt. */
  exactIntegers?: boolean;
  /** Told the result's columns (typed where the database says) before the first batch, rows or not. */
  onColumns?: ((columns: ResultColumn[]) => Promise<void> | void) | undefined;
  /**
   * Takes one batch: each row is an array of its values in the order `onColumns` gave (no object
   * per row: a million rows read faster). The next batch is handed over only once it resolves.
   */
  onBatch: (rows: unknown[][]) => Promise<void> | void;
  login?: ReaderLoginSource;
}

/**
 * One read-only statement read a batch at a time, with no cap on rows (`skillsync export`): the
 * same checks, connection and transaction as `readOnly`, but the rows are handed to `onBatch` as
 * they come and never held whole. Returns how many rows were read.
 *
 * @example await readOnlyBatches(w, "select * from t", { onBatch: (rows) => out.write(rows) })
 */
export async function readOnlyBatches(w: Warehouse, text: string, o: BatchReadOptions): Promise<number> {
  const source = o.source ?? "SQL query";
  const checked = checkReadStatement(text, w.adapter.lexicon, source);
  const opts = {
    params: o.params ?? [],
    timeoutMs: o.timeoutMs,
    batchRows: o.batchRows ?? 10_000,
    source,
    exactIntegers: o.exactIntegers === true,
    onColumns: o.onColumns,
    onBatch: o.onBatch,
  };
  return w.readPath.batches(checked.text, opts, o.login);
}

/** Ends the SQLite reader processes, if any run (each also ends itself when idle for 5 s). */
export { closeSqliteReaders as closeReadOnly } from "./sqlite/read-only.js";
