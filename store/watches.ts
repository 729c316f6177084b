import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import type { WatchSpec } from "../schema/watch.js";

/** A watch as listed: its name, table, settings and when it was made. */
export interface WatchRow {
  name: string;
  table: string;
  spec: WatchSpec;
  createdAt: string;
  /** How many keys it names (0 with `spec.allKeys`). */
  keys: number;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/**
 * Records a watch and its keys in one transaction, and returns it as listed. Undefined (nothing
 * written) when the name is taken: two `watch add` of one name at once make one watch.
 */
export async function insertWatch(
  w: Warehouse,
  name: string,
  spec: WatchSpec,
  keys: readonly string[],
): Promise<WatchRow | undefined> {
  const createdAt = new Date().toISOString();
  const unique = [...new Set(keys)];
  return w.transaction(async (tx) => {
    const made = await tx.db
      .insertInto("skillsync_watches")
      .values({ name, table_name: spec.table, spec: JSON.stringify(spec), created_at: createdAt })
      .onConflict((oc) => oc.column("name").doNothing())
      .executeTakeFirst();
    if (!Number(made.numInsertedOrUpdatedRows ?? 0)) return undefined;
    for (let i = 0; i < unique.length; i += 500) {
      await tx.db
        .insertInto("skillsync_watch_keys")
        .values(unique.slice(i, i + 500).map((key_text) => ({ watch: name, key_text })))
        .execute();
    }
    return { name, table: spec.table, spec, createdAt, keys: unique.length };
  });
}

/** Removes a watch and its keys (its alerts stay: they happened). False when there is none. */
export async function deleteWatch(w: Warehouse, name: string): Promise<boolean> {
  return w.transaction(async (tx) => {
    await tx.db.deleteFrom("skillsync_watch_keys").where("watch", "=", name).execute();
    const r = await tx.db.deleteFrom("skillsync_watches").where("name", "=", name).executeTakeFirst();
    return Number(r.numDeletedRows ?? 0) > 0;
  });
}

/** A watch's row as read: its name, table, settings and when it was made. */
function watchOf(r: { name: unknown; table_name: unknown; spec: unknown; created_at: unknown }) {
  return {
    name: String(r.name),
    table: String(r.table_name),
    spec: JSON.parse(String(r.spec)) as WatchSpec,
    createdAt: iso(r.created_at),
  };
}

/** Every watch, by name, with how many keys each names. */
export async function listWatches(db: Kysely<AnyDB>): Promise<WatchRow[]> {
  const rows = await db
    .selectFrom("skillsync_watches as w")
    .select(["w.name", "w.table_name", "w.spec", "w.created_at"])
    .select((eb) =>
      eb
        .selectFrom("skillsync_watch_keys as k")
        .select(eb.fn.countAll().as("n"))
        .whereRef("k.watch", "=", "w.name")
        .as("keys"),
    )
    .orderBy("w.name")
    .execute();
  return rows.map((r) => ({ ...watchOf(r), keys: Number(r.keys ?? 0) }));
}

/**
 * The watches (of one table, or all), without counting their keys: read by every load
 * transaction of a watched table and at every load's end.
 */
export async function watchSettings(db: Kysely<AnyDB>, table?: string): Promise<Omit<WatchRow, "keys">[]> {
  let q = db.selectFrom("skillsync_watches").select(["name", "table_name", "spec", "created_at"]);
  if (table !== undefined) q = q.where("table_name", "=", table);
  return (await q.execute()).map(watchOf);
}

/** Of these watches, which name which of these keys: watch → its keys among them. */
export async function watchedKeys(
  db: Kysely<AnyDB>,
  watches: readonly string[],
  keys: readonly string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (!watches.length || !keys.length) return out;
  const wanted = new Set(watches);
  for (let i = 0; i < keys.length; i += 500) {
    // By key alone (its own index): the watches of other tables that name the same text are dropped here.
    const rows = await db
      .selectFrom("skillsync_watch_keys")
      .select(["watch", "key_text"])
      .where("key_text", "in", keys.slice(i, i + 500))
      .execute();
    for (const r of rows) {
      const watch = String(r.watch);
      if (!wanted.has(watch)) continue;
      const set = out.get(watch) ?? new Set<string>();
      set.add(String(r.key_text));
      out.set(watch, set);
    }
  }
  return out;
}

/** The keys a watch names, in order (for `watch list --json`, the add-on and `watch test`). */
export async function keysOfWatch(db: Kysely<AnyDB>, name: string): Promise<string[]> {
  const rows = await db
    .selectFrom("skillsync_watch_keys")
    .select("key_text")
    .where("watch", "=", name)
    .orderBy("key_text")
    .execute();
  return rows.map((r) => String(r.key_text));
}

/** Where every watch sends (the delivering processes resolve these): webhook references and e-mail addresses. */
export async function listWatchNotify(w: Warehouse): Promise<{ urlRefs: string[]; emails: string[] }> {
  const urlRefs = new Set<string>();
  const emails = new Set<string>();
  for (const { spec } of await watchSettings(w.db)) {
    if (spec.notify.url?.startsWith("env:")) urlRefs.add(spec.notify.url);
    for (const e of spec.notify.email) emails.add(e.toLowerCase());
  }
  return { urlRefs: [...urlRefs], emails: [...emails] };
}
