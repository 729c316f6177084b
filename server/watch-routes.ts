import { z } from "zod";
import { fromZodIssues, type Issue, ValidationError } from "../core/errors.js";
import { backfillWatch, defineWatch, readAlerts, removeWatch, watchWarnings } from "../engine/watch/index.js";
import { objectKeysAt } from "../schema/keys.js";
import { watchFileSchema } from "../schema/watch.js";
import { listWatches } from "../store/watches.js";
import { errorReply, type Reply, reply } from "./http.js";
import { jsonBody, parse, type RouteContext } from "./routes.js";

const SOURCE = "POST /watches";

/** A watch file's members, plus its name and whether to alert on changes already loaded. */
const watchRequestSchema = watchFileSchema.extend({
  name: z.string().min(1).max(100),
  backfill: z.boolean().optional(),
});

const alertsQuerySchema = z.strictObject({
  since: z.string().min(1).max(40).optional(),
  watch: z.string().min(1).max(100).optional(),
  // Bounded: the answer is one JSON body, built in memory.
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** Ignored: lets a client make two otherwise identical requests in one second (each signature is single-use). */
  nonce: z.string().max(64).optional(),
});

/** The body checked against the watch file's schema; unknown members named with the nearest known one. */
function watchRequest(json: unknown) {
  const r = watchRequestSchema.safeParse(json);
  if (!r.success) {
    throw new ValidationError(
      SOURCE,
      fromZodIssues(r.error.issues, {
        input: json,
        knownKeys: (path) => objectKeysAt(watchRequestSchema, path),
      }),
    );
  }
  // A path would name a file on the server's machine: a client names its keys in the request.
  if (r.data.keys && "file" in r.data.keys) {
    throw new ValidationError(SOURCE, [
      {
        path: ["keys", "file"],
        message: "the server reads no files: give the keys in the request, keys.list or keys.sql",
      },
    ]);
  }
  return r.data;
}

/** The name is taken: said by defineWatch as an issue at `name` ("already exists"). */
const nameTaken = (issues: readonly Issue[]) =>
  issues.some((i) => i.path[0] === "name" && i.message.includes("already exists"));

/**
 * POST /watches: a watch made as `watch add` makes it (engine/watch defineWatch: checked against
 * the warehouse, nothing written on error). Costs no credit: a watch reads what loads write.
 */
export async function postWatch(ctx: RouteContext, body: string): Promise<Reply> {
  const parsed = jsonBody(body);
  if ("status" in parsed) return parsed;
  const { name, backfill, ...file } = watchRequest(parsed.json);
  let made: Awaited<ReturnType<typeof defineWatch>>;
  try {
    made = await defineWatch(ctx.warehouse, name, file, { source: SOURCE });
  } catch (err) {
    if (!(err instanceof ValidationError) || !nameTaken(err.issues)) throw err;
    const message = `a watch named "${name}" already exists: remove it first (DELETE /watches/${name}) or choose another name`;
    return errorReply(409, "WATCH_EXISTS", message, [{ path: ["name"], message }]);
  }
  const backfilled = backfill ? await backfillWatch(ctx.warehouse, made) : 0;
  return reply(201, { watch: made, warnings: await watchWarnings(made.spec), backfilled });
}

/** GET /watches: every watch, by name, with its settings and how many keys it names. */
export async function getWatches(ctx: RouteContext): Promise<Reply> {
  return reply(200, { watches: await listWatches(ctx.warehouse.db) });
}

/** DELETE /watches/:name: the watch and its keys go; its alerts stay (they happened). */
export async function deleteWatchRoute(ctx: RouteContext, name: string): Promise<Reply> {
  try {
    await removeWatch(ctx.warehouse, name, `DELETE /watches/${name.slice(0, 80)}`);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return errorReply(404, "UNKNOWN_WATCH", `no watch "${name.slice(0, 80)}" (see GET /watches)`);
  }
  return reply(200, { removed: name });
}

/** GET /alerts?since=last|DATE|LOADID&watch=&limit=: recorded alerts, oldest first (not those a cooldown held back). */
export async function getAlerts(ctx: RouteContext, query: URLSearchParams): Promise<Reply> {
  const q = parse(alertsQuerySchema, Object.fromEntries(query), "query");
  try {
    const alerts = await readAlerts(ctx.warehouse, q);
    return reply(
      200,
      // A held-back alert is never listed here, so `suppressed` would always say false.
      { alerts: alerts.map(({ suppressed: _held, ...a }) => a) },
    );
  } catch (err) {
    // readAlerts says what is wrong in the CLI's words (--since); here it was the query's `since`.
    if (err instanceof ValidationError && err.source === "--since")
      throw new ValidationError(
        "query",
        err.issues.map((i) => ({ ...i, path: ["since"] })),
      );
    throw err;
  }
}
