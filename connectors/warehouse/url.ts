import { resolve } from "node:path";
import { ValidationError } from "../../core/errors.js";

export type WarehouseTarget =
  | { kind: "sqlite"; path: string }
  | { kind: "postgres"; connectionString: string; schema: string | undefined };

export const DEFAULT_DB = "./skillsync.db";

/**
 * Reads a database URL: a path or `sqlite:PATH` is a SQLite file, `postgres://…` a Postgres server.
 * `?schema=NAME` on a Postgres URL puts every table in that schema (one per test, one per tenant).
 *
 * @example parseWarehouseUrl("sqlite:./data/w.db") // { kind: "sqlite", path: "/abs/data/w.db" }
 */
export function parseWarehouseUrl(url: string | undefined = process.env["DATABASE_URL"]): WarehouseTarget {
  const value = (url ?? "").trim() || DEFAULT_DB;
  if (/^postgres(ql)?:\/\//i.test(value)) {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ValidationError("database URL", [{ path: [], message: "is not a valid postgres:// URL" }]);
    }
    const schema = parsed.searchParams.get("schema") ?? undefined;
    if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new ValidationError("database URL", [
        { path: ["schema"], message: "must be a plain identifier" },
      ]);
    }
    parsed.searchParams.delete("schema");
    return { kind: "postgres", connectionString: parsed.toString(), schema };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !value.startsWith("sqlite:") && !value.startsWith("file:")) {
    throw new ValidationError("database URL", [
      {
        path: [],
        message: `unsupported scheme in "${value.split(":")[0]}:"; use a file path, sqlite:PATH or postgres://`,
      },
    ]);
  }
  const path = value.replace(/^sqlite:(\/\/)?/, "").replace(/^file:(\/\/)?/, "");
  return { kind: "sqlite", path: path === ":memory:" ? path : resolve(path) };
}

/** A URL safe to print: the password is masked. */
export function describeWarehouse(target: WarehouseTarget): string {
  if (target.kind === "sqlite") return `sqlite:${target.path}`;
  const u = new URL(target.connectionString);
  if (u.password) u.password = "***";
  return `${u.toString()}${target.schema ? ` (schema ${target.schema})` : ""}`;
}
