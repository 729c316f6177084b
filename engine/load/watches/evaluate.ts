import type { Kysely } from "kysely";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import type { WatchSpec } from "../../../schema/watch.js";
import { writeEachAlert } from "../../../store/alert-events.js";
import { type AlertDraft, insertAlerts, lastAlerted } from "../../../store/alerts.js";
import { watchedKeys, watchSettings } from "../../../store/watches.js";
import type { CompiledMapping } from "../../normalize/mapping.js";
import type { NewVersion } from "../history.js";
import { type KeyChange, matchChange } from "./match.js";
import { changesOf, keyTextOf } from "./versions.js";

type Versioned = Pick<CompiledMapping, "table" | "children" | "volatile">;

export interface Watcher {
  name: string;
  spec: WatchSpec;
}

/** Which load made the changes, and which run it belongs to. */
export interface LoadOf {
  loadId: number;
  runId: string;
}

/**
 * Inside the transaction that wrote a history table's new versions: each watch of the table that
 * names a changed key (or every key) and whose condition the change meets gets an alert row, and
 * — when it sends each alert on its own — its outbox event, all committed with the rows or not at
 * all. Reads only what the load wrote: no API call. Returns the alerts recorded.
 */
export async function alertOnVersions(
  db: Kysely<AnyDB>,
  m: Versioned,
  versions: readonly NewVersion[],
  load: LoadOf,
): Promise<number> {
  if (!versions.length) return 0;
  const watches = await watchSettings(db, m.table.name);
  if (!watches.length) return 0;
  const keyText = keyTextOf(m.table);
  const keys = versions.map((v) => keyText(v.parent));
  const interested = await interestedWatches(db, watches, keys, m.table.key.length > 1);
  if (!interested.size) return 0;
  const names = new Set([...interested.values()].flat());
  const looking = watches.filter((w) => names.has(w.name));
  // Child tables are read back only when a watch that looks at these keys can alert on them.
  const children = m.children.filter((c) => looking.some((w) => watchesChild(w.spec, c.name)));
  const changes = await changesOf(
    db,
    { ...m, children },
    versions.filter((_, i) => interested.has(keys[i]!)),
  );
  const at = new Map(versions.map((v, i) => [keys[i]!, v.from]));
  return recordMatches(db, m.table.name, watches, { interested, changes, at }, load);
}

/** What a load changed in one watched table or view: per key its changes, when, and who watches it. */
export interface Changed {
  interested: Map<string, string[]>;
  changes: Map<string, KeyChange[]>;
  at: Map<string, string>;
}

/** Each watch's matches among the changes, recorded (cooldown applied) with their events; returns how many. */
export async function recordMatches(
  db: Kysely<AnyDB>,
  table: string,
  watches: readonly Watcher[],
  c: Changed,
  load: LoadOf,
): Promise<number> {
  // Each change handed to the watches that look at its key: no watch walks every changed key.
  const mine = new Map<string, [string, KeyChange[]][]>();
  for (const [key, list] of c.changes) {
    for (const name of c.interested.get(key) ?? [])
      mine.get(name)?.push([key, list]) ?? mine.set(name, [[key, list]]);
  }
  let recorded = 0;
  for (const w of watches) {
    const drafts = (mine.get(w.name) ?? []).flatMap(([key, list]) =>
      draftsOf(w, table, list, { ...load, changedAt: c.at.get(key)! }),
    );
    if (!drafts.length) continue;
    const fresh = await insertAlerts(db, await withCooldown(db, w, drafts));
    await writeEachAlert(db, w.spec, fresh);
    recorded += fresh.length;
  }
  return recorded;
}

/** Whether a watch can alert on a child table's rows (matchChange): it names the table, or every column. */
function watchesChild(spec: WatchSpec, child: string): boolean {
  return spec.columns === null || spec.columns.includes(child);
}

/**
 * Changed key → the watches that look at it (every key, or a key they name). A key of several
 * columns (`multi`) is named by its JSON text, or by any one of its values.
 */
export async function interestedWatches(
  db: Kysely<AnyDB>,
  watches: readonly Watcher[],
  keys: readonly string[],
  multi: boolean,
): Promise<Map<string, string[]>> {
  const named = watches.filter((w) => !w.spec.allKeys).map((w) => w.name);
  const every = watches.filter((w) => w.spec.allKeys).map((w) => w.name);
  const parts = (key: string): string[] => (multi ? [key, ...(JSON.parse(key) as string[])] : [key]);
  const keyParts = new Map(keys.map((k) => [k, parts(k)]));
  const found = await watchedKeys(db, named, [...new Set([...keyParts.values()].flat())]);
  // From the keys each watch names to the watches of each key: one pass over what was found.
  const byPart = new Map<string, string[]>();
  for (const [watch, names] of found)
    for (const p of names) byPart.get(p)?.push(watch) ?? byPart.set(p, [watch]);
  const out = new Map<string, string[]>();
  for (const [key, ps] of keyParts) {
    const hits = ps.flatMap((p) => byPart.get(p) ?? []);
    const all = [...every, ...new Set(hits)];
    if (all.length) out.set(key, all);
  }
  return out;
}

function draftsOf(
  w: Watcher,
  table: string,
  changes: readonly KeyChange[],
  o: LoadOf & { changedAt: string },
): AlertDraft[] {
  return changes.flatMap((c) => {
    const m = matchChange(w.spec, c);
    if (!m) return [];
    return [
      {
        watch: w.name,
        table,
        key: c.key,
        ...m,
        loadId: o.loadId,
        runId: o.runId,
        changedAt: o.changedAt,
        suppressed: false,
      },
    ];
  });
}

/** A key that alerted within the watch's cooldown before this change: its alerts are kept, marked suppressed. */
async function withCooldown(db: Kysely<AnyDB>, w: Watcher, drafts: AlertDraft[]): Promise<AlertDraft[]> {
  const cooldown = w.spec.notify.cooldownMs;
  if (!cooldown) return drafts;
  const last = await lastAlerted(db, w.name, [...new Set(drafts.map((d) => d.key))]);
  return drafts.map((d) => {
    const before = last.get(d.key);
    const within = before !== undefined && Date.parse(d.changedAt) - before < cooldown;
    return within ? { ...d, suppressed: true } : d;
  });
}
