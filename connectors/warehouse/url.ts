import { resolve } from "node:path";
import { readConfig } from "../../core/env-config.js";
import { ValidationError } from "../../core/errors.js";

export type WarehouseTarget =
  | { kind: "sqlite"; path: string }
  | { kind: "postgres"; connectionString: string; schema: string | undefined };

const DEFAULT_DB = "./skillsync.db";

/** Where every mistake below is: the flag, else the variable. */
const SOURCE = "database URL (--db or DATABASE_URL)";

/** Where a message about the warehouse says it came from: the flag, else the variable. */
export const URL_SETTING = "--db (or DATABASE_URL)";

/** What a message about a warehouse that is not there yet says to do. */
export const NOT_THERE = "run a pipeline or `skillsync migrate` to create one";

/**
 * Reads a database URL: a path or `sqlite:PATH` is a SQLite file, `postgres://…` a Postgres server.
 * `?schema=NAME` on a Postgres URL puts every table in that schema (one per test, one per tenant).
 *
 * @example parseWarehouseUrl("sqlite:./data/w.db") // { kind: "sqlite", path: "/abs/data/w.db" }
 */
export function parseWarehouseUrl(url: string | undefined = readConfig().databaseUrl): WarehouseTarget {
  const value = (url ?? "").trim() || DEFAULT_DB;
  if (/[\0-\x1f]/.test(value)) {
    throw new ValidationError(SOURCE, [{ path: [], message: "contains a NUL or control character" }]);
  }
  if (/^postgres(ql)?:\/\//i.test(value)) {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ValidationError(SOURCE, [{ path: [], message: "is not a valid postgres:// URL" }]);
    }
    checkPostgresUrl(parsed);
    const schema = parsed.searchParams.get("schema") ?? undefined;
    if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new ValidationError(SOURCE, [{ path: ["schema"], message: "must be a plain identifier" }]);
    }
    parsed.searchParams.delete("schema");
    return { kind: "postgres", connectionString: parsed.toString(), schema };
  }
  if (/^postgres(ql)?(:|\/\/)/i.test(value)) {
    // A colon or slash short of postgres:// would otherwise become a SQLite file at that path.
    throw new ValidationError(SOURCE, [
      {
        path: [],
        // Only the scheme is quoted: what follows may hold a password.
        message: `starts "${/^[a-z]+[:/]+/i.exec(value)?.[0]}", which is not postgres:// — write postgres://USER@HOST:PORT/DATABASE (a SQLite file: a path or sqlite:PATH)`,
      },
    ]);
  }
  // Two letters at least before the colon: C:\\data\\w.db is a Windows path.
  if (/^[a-z][a-z0-9+.-]+:/i.test(value) && !value.startsWith("sqlite:") && !value.startsWith("file:")) {
    throw new ValidationError(SOURCE, [
      {
        path: [],
        message: `unsupported scheme in "${value.split(":")[0]}:"; use a file path, sqlite:PATH or postgres://`,
      },
    ]);
  }
  const path = value.replace(/^sqlite:(\/\/)?/, "").replace(/^file:(\/\/)?/, "");
  return { kind: "sqlite", path: path === ":memory:" ? path : resolve(path) };
}

/**
 * Refuses what the driver would take to DNS or choke on: a host that is not a host name or an IP
 * address (`postgres://%zz`), percent escapes that do not decode (in the user, password or database).
 */
function checkPostgresUrl(u: URL): void {
  const bad = (message: string): never => {
    throw new ValidationError(SOURCE, [{ path: [], message }]);
  };
  const host = u.hostname;
  if (
    host &&
    !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?$/.test(host) &&
    !/^\[[0-9A-Fa-f:.]+\]$/.test(host)
  ) {
    bad(`host "${host.slice(0, 60)}" is not a host name or an IP address`);
  }
  for (const [part, text] of [
    ["user", u.username],
    ["password", u.password],
    ["database", u.pathname],
  ] as const) {
    try {
      decodeURIComponent(text);
    } catch {
      bad(`the ${part} has a percent escape that does not decode (write % as %25)`);
    }
  }
}

/** A database server other processes reach too (a queue beside the warehouse lives there). */
export interface DatabaseServer {
  connectionString: string;
  /** The warehouse's schema (`?schema=`); undefined: the default one. */
  schema: string | undefined;
}

/** The server a warehouse's URL names: Postgres's; undefined for a SQLite file, which has none. */
export function serverOf(target: WarehouseTarget): DatabaseServer | undefined {
  return target.kind === "postgres"
    ? { connectionString: target.connectionString, schema: target.schema }
    : undefined;
}

/** A URL safe to print: the password is masked. */
export function describeWarehouse(target: WarehouseTarget): string {
  if (target.kind === "sqlite") return `sqlite:${target.path}`;
  const u = new URL(target.connectionString);
  if (u.password) u.password = "***";
  return `${u.toString()}${target.schema ? ` (schema ${target.schema})` : ""}`;
}
