import { z } from "zod";
import type { ReadMeasure } from "../connectors/warehouse/read-cap.js";
import { fromZodIssues, ValidationError } from "../core/errors.js";
import { ANSWER_BOUNDS, truncationOf } from "../engine/publish/answer-bounds.js";
import { CHANGE_COLUMN_TYPES, type ChangesPage, readChangesPage } from "../engine/publish/changes.js";
import { typedValue, userTables } from "../engine/publish/read-table.js";
import type { ColumnType } from "../schema/table.js";
import { errorReply, type Reply, reply } from "./http.js";
import { pageSchema, type RouteContext } from "./routes.js";

/** The paging of GET /tables/:name, and which changes. */
const changesQuerySchema = pageSchema.extend({ since: z.string().min(1).max(40) });

/** The query checked; a missing or wrong `since` is said with what it may be. */
function pageQuery(query: URLSearchParams) {
  const q = changesQuerySchema.safeParse(Object.fromEntries(query));
  if (q.success) return q.data;
  const since = "say which changes: since=last (the latest load's), since=YYYY-MM-DD or since=<load id>";
  throw new ValidationError(
    "query",
    fromZodIssues(q.error.issues).map((i) => (i.path[0] === "since" ? { ...i, message: since } : i)),
  );
}

/**
 * GET /changes/:table?since=last|YYYY-MM-DD|<loadId>&limit=&offset=&columns=: what changed in a
 * history table, a page at a time, in the page shape of GET /tables/:name plus `since` (and, for
 * `last`, the load it resolved to). Names are checked against the warehouse's own; values are bound.
 */
export async function readChangesRoute(
  ctx: RouteContext,
  table: string,
  query: URLSearchParams,
): Promise<Reply> {
  const w = ctx.warehouse;
  const page = pageQuery(query);
  let measure: ReadMeasure | undefined;
  let found: ChangesPage;
  try {
    // A page stops at the answer's bounds (answer-bounds.ts): nextOffset goes on from its last row.
    found = await readChangesPage(w, {
      table,
      since: page.since,
      limit: page.limit,
      offset: page.offset,
      columns: page.columns
        ?.split(",")
        .map((c) => c.trim())
        .filter(Boolean),
      ...ANSWER_BOUNDS,
      onMeasure: (m) => (measure = m),
    });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // readChanges says what is wrong in the CLI's words (--since); here it was the query's `since`.
    if (err.source === "--since")
      throw new ValidationError(
        "query",
        err.issues.map((i) => ({ ...i, path: ["since"] })),
      );
    // No such table at all: 404 as GET /tables/:name, with readChanges' list of the history tables.
    if (err.source === "changes" && !(await userTables(w)).includes(table))
      return errorReply(404, "UNKNOWN_TABLE", err.message, err.issues);
    throw err;
  }
  const types: Record<string, ColumnType> = { ...ctx.columnTypes.get(table), ...CHANGE_COLUMN_TYPES };
  const next = page.offset + found.rows.length;
  const cut = truncationOf(measure);
  return reply(200, {
    table,
    since: page.since,
    ...(found.loadId === undefined ? {} : { loadId: found.loadId }),
    columns: found.columns.map((c) => ({ name: c, type: types[c] ?? null })),
    offset: page.offset,
    limit: page.limit,
    total: found.total,
    nextOffset: next < found.total ? next : null,
    truncated: cut.truncatedBy === "bytes",
    ...(cut.truncatedBy === "bytes" ? { truncatedBy: "bytes" } : {}),
    ...(cut.cellsCut ? { cellsCut: cut.cellsCut } : {}),
    rows: found.rows.map((r) =>
      Object.fromEntries(found.columns.map((c) => [c, typedValue(r[c], types[c])])),
    ),
  });
}
