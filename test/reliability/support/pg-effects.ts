import { readdirSync } from "node:fs";
import pg from "pg";
import { PG_URL } from "./warehouses.js";

/**
 * What a statement could leave behind on a Postgres server, seen from a separate session (a fresh
 * superuser connection): the read-only trial (read-only.test.ts) takes these before and after, and
 * a cheap part of them after every statement, so that an effect names the statement that made it.
 *
 * Other tests (other files, other checkouts) share the server and make and drop schemas and roles
 * meanwhile: `t_<12 hex>` schemas (test/helpers), `rel_<6 hex>_…` ones of another suite run, and
 * their reader roles. Those are left out; everything else on the server is compared.
 */
export interface EffectScope {
  /** The suite's tag: `rel_<tag>_…` schemas are this run's and are compared. */
  tag: string;
  /** The warehouse's schema, and the reader role its read paths log in as. */
  schema: string;
  reader: string;
  /** The sentinel sessions' backend pids. */
  sentinels: number[];
  /** Where the pg_walinspect functions are (undefined: the extension is not available). */
  walinspect: string | undefined;
}

const OTHER_TESTS_SCHEMA = /^(t_[0-9a-f]{12}(_pgboss)?|rel_[0-9a-f]{6}_.*)$/;
const OTHER_TESTS_ROLE =
  /^(skillsync_read_[0-9a-f]{8}_(t_[0-9a-f]{12}|rel_[0-9a-f]{6}_.*|public)|skillsync_reader_[0-9a-f]{8}|owner_[0-9a-f]{8})$/;

const foreignSchema = (s: EffectScope, name: string) =>
  OTHER_TESTS_SCHEMA.test(name) && !name.startsWith(`rel_${s.tag}_`);
const foreignRole = (s: EffectScope, name: string) => OTHER_TESTS_ROLE.test(name) && name !== s.reader;

export async function superuserClient(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: PG_URL, application_name: "skillsync_effects_checker" });
  await c.connect();
  return c;
}

async function rows(
  c: pg.ClientBase,
  text: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  return (await c.query(text, values)).rows as Record<string, unknown>[];
}

const line = (r: Record<string, unknown>) => Object.values(r).map(String).join(" | ");

/**
 * Privileges (`{=Tc/postgres,role=c/postgres}`) without those of other tests' roles: making a
 * reader role grants it CONNECT on the database, so the database's privileges change whenever a
 * test elsewhere makes or drops one.
 */
function withoutOthers(s: EffectScope, r: Record<string, unknown>): Record<string, unknown> {
  const out = { ...r };
  for (const [k, v] of Object.entries(r)) {
    if (!k.endsWith("acl") || v === null) continue;
    const items = Array.isArray(v)
      ? v.map(String)
      : String(v)
          .replace(/^\{|\}$/g, "")
          .split(",");
    out[k] = items.filter((item) => !foreignRole(s, item.split("=")[0]!.replaceAll('"', ""))).join(",");
  }
  return out;
}

/**
 * The server's state that outlives a session, as lines per topic: roles (with their attributes and
 * password hashes), memberships and role settings, functions (with their bodies), schemas,
 * relations (with their grants), default privileges, sequences' last values, large objects,
 * replication slots and origins, prepared transactions, the configuration (when it was last
 * loaded, and the files' settings), statistics resets, extensions, event triggers, publications,
 * subscriptions, tablespaces, databases.
 */
export async function serverState(c: pg.ClientBase, s: EffectScope): Promise<Record<string, string[]>> {
  const bySchema = (key: string) => (r: Record<string, unknown>) => !foreignSchema(s, String(r[key]));
  const byRole = (key: string) => (r: Record<string, unknown>) => !foreignRole(s, String(r[key]));
  const topics: Record<string, [string, ((r: Record<string, unknown>) => boolean)?]> = {
    roles: [
      `select rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls,
        rolconnlimit, rolvaliduntil, md5(coalesce(rolpassword, '')) as password from pg_authid order by 1`,
      byRole("rolname"),
    ],
    memberships: [
      `select r.rolname as role, m.rolname as member, a.admin_option from pg_auth_members a
        join pg_roles r on r.oid = a.roleid join pg_roles m on m.oid = a.member order by 1, 2`,
      (r) => byRole("role")(r) && byRole("member")(r),
    ],
    role_settings: [
      `select coalesce(d.datname, '*') as db, coalesce(r.rolname, '*') as role, s.setconfig from pg_db_role_setting s
        left join pg_database d on d.oid = s.setdatabase left join pg_roles r on r.oid = s.setrole order by 1, 2`,
      byRole("role"),
    ],
    functions: [
      `select n.nspname, p.proname, pg_get_function_identity_arguments(p.oid) as args, p.prosecdef, p.provolatile,
        p.proconfig, md5(p.prosrc) as body, pg_get_userbyid(p.proowner) as owner, p.proacl
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname not in ('pg_catalog', 'information_schema') order by 1, 2, 3`,
      bySchema("nspname"),
    ],
    schemas: [
      `select nspname, pg_get_userbyid(nspowner) as owner, nspacl from pg_namespace
        where nspname !~ '^pg_(toast_)?temp_' order by 1`,
      bySchema("nspname"),
    ],
    relations: [
      `select n.nspname, c.relname, c.relkind, pg_get_userbyid(c.relowner) as owner, c.relacl
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname !~ '^pg_(toast_)?temp_'
        order by 1, 2`,
      bySchema("nspname"),
    ],
    reader_temporary_relations: [
      `select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname ~ '^pg_(toast_)?temp_' and c.relowner = (select oid from pg_roles where rolname = '${s.reader}')`,
    ],
    default_privileges: [
      `select pg_get_userbyid(d.defaclrole) as role, coalesce(n.nspname, '') as nspname, d.defaclobjtype, d.defaclacl
        from pg_default_acl d left join pg_namespace n on n.oid = d.defaclnamespace order by 1, 2, 3`,
      (r) => bySchema("nspname")(r) && byRole("role")(r),
    ],
    sequences: [
      // Each run's load row (skillsync_loads) numbers itself: the run's own bookkeeping, as its run row.
      "select schemaname, sequencename, last_value from pg_sequences where sequencename <> 'skillsync_loads_id_seq' order by 1, 2",
      bySchema("schemaname"),
    ],
    large_objects: ["select oid, pg_get_userbyid(lomowner) as owner from pg_largeobject_metadata order by 1"],
    replication_slots: ["select slot_name, slot_type, temporary from pg_replication_slots order by 1"],
    replication_origins: ["select roname from pg_replication_origin order by 1"],
    prepared_transactions: ["select gid, owner from pg_prepared_xacts order by 1"],
    configuration: [
      `select pg_conf_load_time() as loaded, (select md5(string_agg(concat_ws(':', sourcefile, sourceline, name, setting), ','
        order by sourcefile, sourceline, name)) from pg_file_settings) as files`,
    ],
    statistics_resets: [
      `select 'database' as what, stats_reset from pg_stat_database where datname = current_database()
        union all select 'bgwriter', stats_reset from pg_stat_bgwriter
        union all select 'archiver', stats_reset from pg_stat_archiver
        union all select 'wal', stats_reset from pg_stat_wal
        union all (select 'slru ' || name, stats_reset from pg_stat_slru order by name)`,
    ],
    extensions: [
      "select extname, extversion, extnamespace::regnamespace::text as nspname from pg_extension order by 1",
      bySchema("nspname"),
    ],
    event_triggers: ["select evtname, evtevent, evtenabled from pg_event_trigger order by 1"],
    publications: ["select pubname from pg_publication order by 1"],
    subscriptions: ["select subname from pg_subscription order by 1"],
    tablespaces: ["select spcname, spcacl from pg_tablespace order by 1"],
    databases: ["select datname, datallowconn, datconnlimit, datacl from pg_database order by 1"],
  };
  const out: Record<string, string[]> = {};
  for (const [topic, [text, keep]] of Object.entries(topics)) {
    out[topic] = (await rows(c, text)).filter((r) => keep?.(r) ?? true).map((r) => line(withoutOthers(s, r)));
  }
  return out;
}

/** Lines of `after` that differ from `before`, per topic: each is one lasting effect. */
export function stateDifferences(
  before: Record<string, string[]>,
  after: Record<string, string[]>,
): string[] {
  const out: string[] = [];
  for (const topic of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[topic] ?? [];
    const a = after[topic] ?? [];
    for (const x of a.filter((l) => !b.includes(l))) out.push(`${topic}: now ${x}`);
    for (const x of b.filter((l) => !a.includes(l))) out.push(`${topic}: gone ${x}`);
  }
  return out;
}

/**
 * The part of `serverState` cheap enough to take after every statement (a few ms): counts and
 * timestamps that change when something outside the statement's transaction happened — a slot,
 * an origin, a large object, a prepared transaction, a configuration reload, a statistics reset,
 * a sentinel gone, an advisory lock kept, a new superuser, the reader role changed, a sequence
 * moved, an object the reader owns.
 */
export async function fingerprint(c: pg.ClientBase, s: EffectScope): Promise<Record<string, string>> {
  const [r] = await rows(
    c,
    `select
      (select count(*) from pg_replication_slots) as replication_slots,
      (select count(*) from pg_replication_origin) as replication_origins,
      pg_conf_load_time() as configuration_loaded,
      (select count(*) from pg_largeobject_metadata) as large_objects,
      (select count(*) from pg_prepared_xacts) as prepared_transactions,
      (select count(*) from pg_stat_activity where pid = any($1::int[])) as sentinels_alive,
      (select count(*) from pg_locks l where l.locktype = 'advisory'
        and (l.objid between 4242 and 4246 or l.pid in (select pid from pg_stat_activity where usename = $2))) as advisory_locks,
      (select count(*) from pg_roles where rolsuper) as superusers,
      (select concat_ws(' ', rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolconfig)
        from pg_roles where rolname = $2) as reader_role,
      (select count(*) from pg_class where relowner = (select oid from pg_roles where rolname = $2)) as reader_owns,
      (select string_agg(concat_ws('=', sequencename, last_value), ',' order by sequencename)
        from pg_sequences where schemaname = $3 and sequencename <> 'skillsync_loads_id_seq') as sequences,
      (select string_agg(coalesce(x::text, '-'), ',') from (
        select stats_reset as x from pg_stat_database where datname = current_database()
        union all select stats_reset from pg_stat_bgwriter union all select stats_reset from pg_stat_archiver
        union all select stats_reset from pg_stat_wal union all (select stats_reset from pg_stat_slru order by name)) t
      ) as statistics_resets`,
    [s.sentinels, s.reader, s.schema],
  );
  return Object.fromEntries(Object.entries(r!).map(([k, v]) => [k, String(v)]));
}

/** Where the WAL is now (read before a statement: `logicalMessagesSince` counts from there). */
export async function walPosition(c: pg.ClientBase): Promise<string> {
  return String((await rows(c, "select pg_current_wal_insert_lsn() as lsn"))[0]!["lsn"]);
}

/**
 * Non-transactional logical decoding messages written to the WAL since `lsn` (pg_walinspect): the
 * one thing a rollback does not take back and no table shows — every logical replication consumer
 * (CDC pipelines) receives it. A transactional message of our own first makes a commit that
 * flushes the WAL up to here (a commit that wrote nothing else would not wait for the flush).
 */
export async function logicalMessagesSince(c: pg.ClientBase, s: EffectScope, lsn: string): Promise<number> {
  if (!s.walinspect) return 0;
  await c.query("select pg_logical_emit_message(true, 'skillsync_effects_flush', '')");
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      const r = await rows(
        c,
        `select count(*)::int as n from "${s.walinspect}".pg_get_wal_records_info_till_end_of_wal($1)
          where resource_manager = 'LogicalMessage' and description like 'non-transactional%'`,
        [lsn],
      );
      return r[0]!["n"] as number;
    } catch (err) {
      // The flush has not reached past `lsn` yet: wait for it.
      if (!/future start LSN|could not find a valid record/.test(String(err)) || Date.now() > until)
        throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * Sessions that must survive the corpus: one as the superuser, one as a plain role of its own.
 * The superuser's listens on the channels the corpus notifies: nothing may arrive.
 */
export interface Sentinels {
  pids: number[];
  notifications: string[];
  /** Errors the sessions saw (a terminated one says so here). */
  errors: string[];
  /** Each still answers `select 1`. */
  answer(): Promise<boolean[]>;
  close(): Promise<void>;
}

export async function openSentinels(plainRole: string): Promise<Sentinels> {
  const admin = await superuserClient();
  await admin.query(`create role "${plainRole}" login nosuperuser nocreatedb nocreaterole`);
  await admin.end();
  const url = new URL(PG_URL!);
  const superuser = new pg.Client({ connectionString: PG_URL, application_name: "skillsync_sentinel_super" });
  url.username = plainRole;
  url.password = "";
  const plain = new pg.Client({
    connectionString: url.toString(),
    application_name: "skillsync_sentinel_plain",
  });
  const errors: string[] = [];
  const notifications: string[] = [];
  for (const c of [superuser, plain]) {
    c.on("error", (err) => errors.push(String(err)));
    await c.connect();
  }
  superuser.on("notification", (n) => notifications.push(`${n.channel}: ${n.payload}`));
  await superuser.query("listen skillsync_evil; listen evil");
  const pids = [];
  for (const c of [superuser, plain])
    pids.push((await c.query("select pg_backend_pid() as pid")).rows[0].pid as number);
  return {
    pids,
    notifications,
    errors,
    async answer() {
      const out: boolean[] = [];
      for (const c of [superuser, plain]) {
        out.push(
          await c.query("select 1 as one").then(
            (r) => r.rows[0]?.one === 1,
            () => false,
          ),
        );
      }
      return out;
    },
    async close() {
      for (const c of [superuser, plain]) await c.end().catch(() => {});
      const cleanup = await superuserClient();
      try {
        await cleanup.query(`drop role if exists "${plainRole}"`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** The folder's files (a statement that wrote into it had an effect). */
export const filesIn = (dir: string): string[] => readdirSync(dir).sort();
