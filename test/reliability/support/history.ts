import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { rows } from "./snapshot.js";

/**
 * The invariants of a `mode: history` table and its child table, checked by SQL on the warehouse
 * (the same statements on SQLite and Postgres). Every entry of the list returned is a violation,
 * with the key and the values that show it; an empty list means they all hold.
 */
export interface HistoryTables {
  parent: string;
  child: string;
  key: string;
  /** The pipeline whose loads (skillsync_loads) wrote these tables. */
  pipeline: string;
}

const LEGAL_STATUS: HistoryTables = {
  parent: "patent_legal_status",
  child: "patent_legal_events",
  key: "publication_number",
  pipeline: "patent-legal-status",
};

/** Times as text, whatever the driver gives (Postgres: Date; SQLite: ISO text). */
const timeText = (v: unknown): string =>
  v instanceof Date ? v.toISOString() : v === null || v === undefined ? "null" : String(v);

const show = (list: Record<string, unknown>[], max = 5) =>
  list
    .slice(0, max)
    .map((r) =>
      Object.entries(r)
        .map(([k, v]) => `${k}=${timeText(v)}`)
        .join(" "),
    )
    .join("; ") + (list.length > max ? ` (and ${list.length - max} more)` : "");

/**
 * Checks, on the tables as they are now (after a kill, after a resume, after concurrent runs):
 * - exactly one current version (`valid_to` null) per key;
 * - a key's versions, ordered by `valid_from`, meet: each non-current one ends where the next
 *   begins (no overlap, no gap), and none ends before it begins;
 * - no two adjacent versions of a key with the same `version_hash` (an unchanged answer made none);
 * - every child row belongs to a parent version (same key and `valid_from`) and ends when it ends;
 * - every parent version has its children (every legal-status record has events: a version
 *   without them was written by halves), numbered without holes;
 * - the changes view has one `added` row per key and a row for every later version.
 */
export async function historyViolations(w: Warehouse, t: HistoryTables = LEGAL_STATUS): Promise<string[]> {
  const { parent, child, key } = t;
  const out: string[] = [];
  const check = async (what: string, query: string) => {
    const found = await rows(w, query);
    if (found.length) out.push(`${what}: ${show(found)}`);
  };
  await check(
    "keys without exactly one current version",
    `select ${key} as k, sum(case when valid_to is null then 1 else 0 end) as current_versions
     from ${parent} group by ${key}
     having sum(case when valid_to is null then 1 else 0 end) <> 1`,
  );
  await check(
    "versions that overlap, leave a gap or end before they begin",
    `select k, valid_from, valid_to, next_from from (
       select ${key} as k, valid_from, valid_to,
         lead(valid_from) over (partition by ${key} order by valid_from) as next_from
       from ${parent}) v
     where (next_from is null and valid_to is not null)
        or (next_from is not null and (valid_to is null or valid_to <> next_from))
        or valid_to <= valid_from`,
  );
  await check(
    "adjacent versions with the same version_hash",
    `select k, valid_from, version_hash from (
       select ${key} as k, valid_from, version_hash,
         lead(version_hash) over (partition by ${key} order by valid_from) as next_hash
       from ${parent}) v
     where next_hash = version_hash`,
  );
  await check(
    "versions written twice (same key and valid_from)",
    `select ${key} as k, valid_from, count(*) as n from ${parent} group by ${key}, valid_from having count(*) > 1`,
  );
  await check(
    "child rows of no parent version",
    `select c.${key} as k, c.valid_from, c.position from ${child} c
     where not exists (select 1 from ${parent} p where p.${key} = c.${key} and p.valid_from = c.valid_from)`,
  );
  await check(
    "child rows that do not end with their parent version",
    `select c.${key} as k, c.valid_from, c.position, c.valid_to, p.valid_to as parent_to
     from ${child} c join ${parent} p on p.${key} = c.${key} and p.valid_from = c.valid_from
     where not (c.valid_to = p.valid_to or (c.valid_to is null and p.valid_to is null))`,
  );
  await check(
    "child rows written twice (same key, valid_from and position)",
    `select ${key} as k, valid_from, position, count(*) as n from ${child}
     group by ${key}, valid_from, position having count(*) > 1`,
  );
  await check(
    "parent versions without their children, or with holes in their positions",
    `select p.${key} as k, p.valid_from, count(c.position) as n, min(c.position) as lo, max(c.position) as hi
     from ${parent} p left join ${child} c on c.${key} = p.${key} and c.valid_from = p.valid_from
     group by p.${key}, p.valid_from
     having count(c.position) = 0 or max(c.position) - min(c.position) + 1 <> count(c.position)`,
  );
  await check(
    "keys whose `added` rows in the changes view are not exactly one",
    `select k.${key} as k, (select count(*) from ${parent}_changes a
        where a.${key} = k.${key} and a.change = 'added') as added
     from (select distinct ${key} from ${parent}) k
     where (select count(*) from ${parent}_changes a where a.${key} = k.${key} and a.change = 'added') <> 1`,
  );
  await check(
    "later versions missing from the changes view",
    `select v.${key} as k, v.valid_from from ${parent} v
     where exists (select 1 from ${parent} p where p.${key} = v.${key} and p.valid_from < v.valid_from)
       and not exists (select 1 from ${parent}_changes c
         where c.${key} = v.${key} and c.change = 'changed' and c.changed_at = v.valid_from)`,
  );
  return out;
}

export interface LoadCheck {
  loads: number;
  finished: number;
  versions: number;
  /** Per load: the keys it made a version of and those it found unchanged (each answered key is one or the other). */
  keys: { id: number; runId: string; versionsNew: number; unchanged: number }[];
  /** Loads whose counters differ from the rows that carry their id (each named in `problems`). */
  problems: string[];
}

/**
 * The counters of every load of the pipeline against the rows that carry its id: `versions_new`
 * equals its parent versions, `rows_inserted` its versions and their child rows, `closed` its
 * versions that follow an earlier one (each closed that one). Counts commit in the load's own
 * transaction, so this holds for a load a kill left unfinished too; `finished` says how many ended.
 */
export async function loadCounters(w: Warehouse, t: HistoryTables = LEGAL_STATUS): Promise<LoadCheck> {
  const { parent, child, key } = t;
  const list = await rows<Record<string, unknown>>(
    w,
    `select l.id, l.run_id, l.finished_at, l.rows_inserted, l.versions_new, l.unchanged, l.closed,
       (select count(*) from ${parent} p where p.load_id = l.id) as versions,
       (select count(*) from ${child} c where c.load_id = l.id) as child_rows,
       (select count(*) from ${parent} p where p.load_id = l.id and exists (
          select 1 from ${parent} q where q.${key} = p.${key} and q.valid_from < p.valid_from)) as successors
     from skillsync_loads l where l.pipeline = '${t.pipeline}' order by l.id`,
  );
  const problems: string[] = [];
  let versions = 0;
  for (const r of list) {
    const n = (k: string) => Number(r[k]);
    versions += n("versions");
    if (
      n("versions_new") !== n("versions") ||
      n("rows_inserted") !== n("versions") + n("child_rows") ||
      n("closed") !== n("successors")
    )
      problems.push(
        `load ${r["id"]} (${r["finished_at"] ? "finished" : "unfinished"}): versions_new ${n("versions_new")} vs ${n("versions")} version rows, rows_inserted ${n("rows_inserted")} vs ${n("versions") + n("child_rows")} rows, closed ${n("closed")} vs ${n("successors")} later versions`,
      );
  }
  const [all] = await rows<{ n: unknown }>(w, `select count(*) as n from ${parent}`);
  if (Number(all?.n ?? 0) !== versions)
    problems.push(`${Number(all?.n)} version rows, ${versions} of them carry a load of ${t.pipeline}`);
  return {
    loads: list.length,
    finished: list.filter((r) => r["finished_at"]).length,
    versions,
    keys: list.map((r) => ({
      id: Number(r["id"]),
      runId: String(r["run_id"]),
      versionsNew: Number(r["versions_new"]),
      unchanged: Number(r["unchanged"]),
    })),
    problems,
  };
}

/** One version of a key as content: its status and its events' codes, in order. */
export interface Version {
  from: string;
  to: string | null;
  signature: string;
}

/** Every key's versions, oldest first, each as a signature of its content (see `signatureOf`). */
export async function versionsByKey(
  w: Warehouse,
  t: HistoryTables = LEGAL_STATUS,
): Promise<Map<string, Version[]>> {
  const { parent, child, key } = t;
  const events = new Map<string, string[]>();
  for (const e of await rows<Record<string, unknown>>(
    w,
    `select ${key} as k, valid_from, event_code from ${child} order by ${key}, valid_from, position`,
  )) {
    const id = `${e["k"]}|${timeText(e["valid_from"])}`;
    const list = events.get(id) ?? [];
    list.push(String(e["event_code"]));
    events.set(id, list);
  }
  const out = new Map<string, Version[]>();
  for (const v of await rows<Record<string, unknown>>(
    w,
    `select ${key} as k, valid_from, valid_to, legal_status from ${parent} order by ${key}, valid_from`,
  )) {
    const k = String(v["k"]);
    const from = timeText(v["valid_from"]);
    const list = out.get(k) ?? [];
    list.push({
      from,
      to: v["valid_to"] === null ? null : timeText(v["valid_to"]),
      signature: `${v["legal_status"]}|${(events.get(`${k}|${from}`) ?? []).join(",")}`,
    });
    out.set(k, list);
  }
  return out;
}

/** The same signature of a record of patent-legal-status-data as the emulator answers it. */
export function signatureOf(record: Record<string, unknown>): string {
  const status = (record["legalStatus"] as string[]).join("; ");
  const codes = (record["eventStatus"] as { eventCode: string }[]).map((e) => e.eventCode).join(",");
  return `${status}|${codes}`;
}
