import type { Kysely } from "kysely";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import type { TableDef } from "../../../schema/table.js";
import type { WatchSpec } from "../../../schema/watch.js";
import { writeEachAlert } from "../../../store/alert-events.js";
import { type AlertDraft, alertedKey, insertAlerts, lastAlerted } from "../../../store/alerts.js";
import type { CompiledMapping } from "../../normalize/mapping.js";
import { groupRows, type NewVersion } from "../history.js";
import { byCondition, interestedWatches } from "./candidates.js";
import { type KeyChange, matchChange, type Watcher } from "./match.js";
import { childChangesOf, comparedColumns, keyTextOf, parentChanges } from "./versions.js";

type Versioned = Pick<CompiledMapping, "table" | "children" | "volatile">;

/** Which load made the changes, and which run it belongs to. */
export interface LoadOf {
  loadId: number;
  runId: string;
}

/**
 * Inside the transaction that wrote a history table's new versions: each of these watches of the
 * table that names a changed key (or every key) and whose condition the change meets gets an alert
 * row, and — when it sends each alert on its own — its outbox event, all committed with the rows or
 * not at all. Reads only what the load wrote: no API call. Returns the alerts recorded.
 */
export async function alertOnVersions(
  db: Kysely<AnyDB>,
  m: Versioned,
  versions: readonly NewVersion[],
  watches: readonly Watcher[],
  load: LoadOf,
): Promise<number> {
  if (!versions.length || !watches.length) return 0;
  const changes = await parentChanges(db, m, versions, comparedColumns(m, watches));
  // A watch that can alert on a child table stays a candidate for every key until its rows are read.
  const watchedChildren = (w: Watcher) => m.children.filter((c) => watchesChild(w.spec, c.name));
  const open = (w: Watcher) => watchedChildren(w).length > 0;
  const interested = await interestedWatches(db, byCondition(watches, changes, open), m.table.key.length > 1);
  if (!interested.size) return 0;
  await addChildChanges(db, m, { versions, watches, interested, changes }, watchedChildren);
  // When each key changed, for the keys a watch looks at only.
  const keyText = keyTextOf(m.table);
  const at = new Map<string, string>();
  for (const v of versions) {
    const key = keyText(v.parent);
    if (interested.has(key)) at.set(key, v.from);
  }
  return recordMatches(db, m.table.name, watches, { interested, changes, at }, load);
}

/**
 * The child tables' changes, read back only for keys a watch that can alert on them looks at, and
 * only for the tables such a watch names, added to those keys' changes (not to a first version's).
 */
async function addChildChanges(
  db: Kysely<AnyDB>,
  m: Versioned,
  c: Pick<Changed, "interested" | "changes"> & {
    versions: readonly NewVersion[];
    watches: readonly Watcher[];
  },
  watchedChildren: (w: Watcher) => TableDef[],
): Promise<void> {
  const byName = new Map(c.watches.map((w) => [w.name, watchedChildren(w)]));
  const tables = new Set<TableDef>();
  const keys = new Set<string>();
  for (const [key, names] of c.interested) {
    const mine = names.flatMap((n) => byName.get(n) ?? []);
    if (!mine.length || c.changes.get(key)?.[0]?.change === "added") continue;
    keys.add(key);
    for (const t of mine) tables.add(t);
  }
  if (!keys.size) return;
  const keyText = keyTextOf(m.table);
  const versions = c.versions.filter((v) => keys.has(keyText(v.parent)));
  const kids = await childChangesOf(db, m, [...tables], versions);
  for (const [key, list] of kids) c.changes.get(key)?.push(...list);
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
  const found = watches.flatMap((w) =>
    (mine.get(w.name) ?? []).flatMap(([key, list]) =>
      draftsOf(w, table, list, { ...load, changedAt: c.at.get(key)! }),
    ),
  );
  if (!found.length) return 0;
  const drafts = await withCooldowns(db, watches, found);
  // Every watch's alerts in one statement: one per watch was a round trip each (issue 46's bench).
  const fresh = await insertAlerts(db, drafts);
  const specs = new Map(watches.map((w) => [w.name, w.spec]));
  for (const [watch, list] of groupRows(fresh, (a) => a.watch))
    await writeEachAlert(db, specs.get(watch)!, list);
  return fresh.length;
}

/** Whether a watch can alert on a child table's rows (matchChange): it names the table, or every column. */
function watchesChild(spec: WatchSpec, child: string): boolean {
  return spec.columns === null || spec.columns.includes(child);
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

/**
 * A key that alerted within its watch's cooldown before this change: its alerts are kept, marked
 * suppressed. The last alerts of every cooling watch read at once.
 */
async function withCooldowns(
  db: Kysely<AnyDB>,
  watches: readonly Watcher[],
  drafts: AlertDraft[],
): Promise<AlertDraft[]> {
  const cooldowns = new Map(watches.map((w) => [w.name, w.spec.notify.cooldownMs]));
  const cooling = drafts.filter((d) => cooldowns.get(d.watch));
  if (!cooling.length) return drafts;
  const last = await lastAlerted(
    db,
    [...new Set(cooling.map((d) => d.watch))],
    [...new Set(cooling.map((d) => d.key))],
  );
  return drafts.map((d) => {
    const cooldown = cooldowns.get(d.watch);
    const before = last.get(alertedKey(d.watch, d.key));
    const within = cooldown && before !== undefined && Date.parse(d.changedAt) - before < cooldown;
    return within ? { ...d, suppressed: true } : d;
  });
}
