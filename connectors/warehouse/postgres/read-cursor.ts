import type pg from "pg";
import Cursor from "pg-cursor";
import { ValidationError } from "../../../core/errors.js";
import { RowCap } from "../read-cap.js";
import type { DialectReadOptions } from "../read-timeout.js";
import { exactPgTypes } from "./types.js";

/** What one batch of a bounded read may weigh, about (the rows as they arrive, before cutting). */
const BATCH_BYTES = 1 << 20;
/** Rows per batch of a read without a bound in bytes. */
const PLAIN_BATCH = 10_000;

/**
 * The statement's rows through a cursor (pg-cursor: the extended protocol's portal, read a batch
 * at a time with Execute's row limit), inside the caller's READ ONLY transaction. Reading stops at
 * `cutAt` rows and one more, at `maxBytes`, or past `maxRows` (an error): the rest of the result is
 * never sent by the server. A bounded read sizes its batches from the rows seen so far (the first
 * batch is one row), so rows of a megabyte each come a few at a time. Each row's cells are cut as
 * it arrives (read-cap.ts). A cursor that failed is left to the caller, which closes the connection.
 */
export async function readThroughCursor(
  client: pg.PoolClient,
  text: string,
  o: DialectReadOptions,
): Promise<Record<string, unknown>[]> {
  const cap = new RowCap({ maxBytes: o.maxBytes, maxCellBytes: o.maxCellBytes, cutAt: o.cutAt });
  const bounded = o.maxBytes !== undefined || o.maxCellBytes !== undefined;
  const cursor = client.query(
    new Cursor<Record<string, unknown>>(text, [...o.params], o.exactIntegers ? { types: exactPgTypes } : {}),
  );
  let more = true;
  while (more) {
    const wanted = batchSize(cap, bounded, o);
    const batch = await cursor.read(wanted);
    for (const row of batch) {
      more = cap.add(row);
      if (o.cutAt === undefined && cap.rows.length > o.maxRows) {
        throw new ValidationError(o.source, [
          { path: [], message: `returned more than ${o.maxRows} rows; add a LIMIT` },
        ]);
      }
      if (!more) break;
    }
    if (batch.length < wanted) more = false;
  }
  await cursor.close();
  o.onMeasure?.(cap.measure());
  return cap.rows;
}

function batchSize(cap: RowCap, bounded: boolean, o: DialectReadOptions): number {
  let n = PLAIN_BATCH;
  if (bounded) {
    const perRow = cap.seenRows === 0 ? BATCH_BYTES : Math.max(1, cap.seenBytes / cap.seenRows);
    n = Math.min(1000, Math.floor(BATCH_BYTES / perRow));
  }
  const left = o.cutAt === undefined ? o.maxRows + 1 - cap.rows.length : o.cutAt + 1 - cap.rows.length;
  return Math.max(1, Math.min(n, left));
}
