import { CompiledQuery, type Kysely } from "kysely";
import { ValidationError } from "../../core/errors.js";
import type { AnyDB } from "./adapter.js";
import { checkReadStatement, type Dialect } from "./read-only.js";

/**
 * Whether a read would run on this connection, without running it: the read-only path's checks,
 * then EXPLAIN, which has the database resolve the statement (tables, columns, types) and never
 * execute it. The database's reason is a ValidationError from `source`.
 *
 * @example await explainRead(trx, "sqlite", "select x from missing", [], "input sql") // throws: no such table: missing
 */
export async function explainRead(
  db: Kysely<AnyDB>,
  dialect: Dialect,
  text: string,
  params: readonly unknown[],
  source: string,
): Promise<void> {
  const checked = checkReadStatement(text, dialect, source);
  const statement = checked.firstWord === "explain" ? checked.text : `explain ${checked.text}`;
  try {
    await db.executeQuery(CompiledQuery.raw(statement, [...params]));
  } catch (err) {
    throw new ValidationError(source, [{ path: [], message: (err as Error).message }], { cause: err });
  }
}
