/**
 * Hostile statements for the one read-only path (issue 20, and issue 29 item 1 "Privilege, not a
 * list"): each escape the issues found, and more. Every statement runs on both databases (one
 * meant for the other is a syntax error there, which is a refusal too). Placeholders, filled in by
 * `fill` before a statement runs:
 *
 * - `{dir}`: a folder the statement tries to write into (the database server could: it must stay empty);
 * - `{marker}`: a file of random content the database server's OS user can read (it must never show);
 * - `{sentinels}`: the pids of the sentinel sessions (a superuser's and a plain role's) that must survive;
 * - `{http}`: host:port of a listener that must receive no request (XML external entities, DTDs);
 * - `{pub}`: the prefix of the functions "someone else" made in `public` (SEED_FUNCTIONS);
 * - `{schema}`: the warehouse's schema; `{conninfo}`: a libpq connection string to the test server.
 */

/** A literal in single quotes, quotes doubled. */
const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Runs `s` as SQL handed over as text: the name check sees only a string, so only the privileges
 * of the login the statement runs as stand between `s` and the server.
 */
export const xml = (s: string): string => `select query_to_xml(${lit(s)}, true, false, '')`;
/** The text wrapped twice: a query_to_xml that runs a query_to_xml. */
const xml2 = (s: string): string => xml(xml(s));
/** Through a function that runs any text (made by someone else, as the superuser: SEED_FUNCTIONS). */
const exec = (s: string): string => `select evil_exec(${lit(s)})`;

const RELOAD = "select pg_reload_conf()";
const READ_MARKER = "select pg_read_file('{marker}')";
const TERMINATE = "select pg_terminate_backend(pid) from pg_stat_activity where pid in ({sentinels})";
const CANCEL = "select pg_cancel_backend(pid) from pg_stat_activity where pid in ({sentinels})";
const SLOT = "select pg_create_physical_replication_slot('skillsync_evil_slot', true)";
const EMIT = "select pg_logical_emit_message(false, 'skillsync_evil', 'x')";
const ENDLESS = "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r";

/** Issue 20: ending the transaction, writes, files and programs, effects, SQLite settings, time. */
const ISSUE_20: string[] = [
  // Ending the read-only transaction, or adding a second statement.
  "commit; update skillsync_budgets set reserved = 0",
  "set transaction read write; delete from skillsync_calls",
  "rollback; create table evil (x int)",
  "end; drop view if exists evil_view",
  "abort; delete from skillsync_runs",
  "commit",
  "start transaction read write",
  "begin; delete from skillsync_calls; commit",
  "select 1; delete from skillsync_calls",
  "select 1;; delete from skillsync_calls",
  "select 1 /* ; */; delete from skillsync_calls",
  "select ';'; delete from skillsync_calls",
  "select $$;$$; delete from skillsync_calls",
  "select 1 -- comment\n; delete from skillsync_calls",
  "select '\\'; delete from skillsync_calls; --'",
  "select E'\\\\'; delete from skillsync_calls",
  "/* comment */ delete from skillsync_calls",
  "-- comment\ndelete from skillsync_calls",
  "(delete from skillsync_calls)",
  "  \n DeLeTe from skillsync_calls",
  "select 1\u0000; delete from skillsync_calls",
  // Writes.
  "update skillsync_budgets set reserved = 0",
  "delete from skillsync_calls",
  "insert into skillsync_runs (id) values ('evil')",
  "insert or replace into skillsync_budgets (scope, reserved) values ('x', 0)",
  "replace into skillsync_budgets (scope, reserved) values ('x', 0)",
  "drop table skillsync_calls",
  "truncate skillsync_calls",
  "create table evil as select 1 as x",
  "create temp table evil_tmp (x int)",
  "create temp view evil_tmp_v as select 1 as x",
  "select 1 as x into evil_into",
  "with d as (delete from skillsync_calls returning *) select count(*) from d",
  "with u as (update skillsync_budgets set reserved = 0 returning *) select * from u",
  "explain analyze delete from skillsync_calls",
  "explain (analyze) delete from skillsync_calls",
  "explain (analyze, buffers) update skillsync_budgets set reserved = 0",
  "select * from skillsync_budgets for update",
  "alter table skillsync_calls add column evil int",
  "create view evil_v as select 1 as x",
  "create or replace function evil() returns int as $$ delete from skillsync_calls returning 1 $$ language sql",
  "do $$ begin delete from skillsync_calls; end $$",
  "call evil()",
  "grant all on skillsync_calls to public",
  "comment on table skillsync_calls is 'evil'",
  "create trigger evil after insert on skillsync_runs begin delete from skillsync_calls; end",
  "reindex",
  "analyze",
  "vacuum",
  "checkpoint",
  "prepare evil as delete from skillsync_calls",
  "listen evil",
  "notify evil",
  "set statement_timeout = 0",
  "reset all",
  "set role postgres",
  "discard all",
  "load 'evil'",
  "lock table skillsync_budgets in access exclusive mode",
  "savepoint evil",
  "begin immediate",
  // Files and programs.
  "copy (select 'x') to program 'id > {dir}/program'",
  "copy (select 'x') to '{dir}/copy-file'",
  "copy skillsync_calls from '/etc/hostname'",
  "select lo_export(lo_from_bytea(0, 'x'), '{dir}/lo')",
  "select lo_import('/etc/hostname')",
  "select pg_read_file('/etc/hostname')",
  "select * from pg_ls_dir('.')",
  "attach database '{dir}/attached.db' as evil",
  "vacuum into '{dir}/vacuumed.db'",
  "detach database main",
  "select load_extension('{dir}/evil')",
  "select writefile('{dir}/writefile', 'x')",
  // Effects outside the statement.
  "select pg_reload_conf()",
  "select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid()",
  "select pg_cancel_backend(pg_backend_pid())",
  "select pg_advisory_lock(42)",
  "select pg_catalog.pg_advisory_lock(42)",
  'select "pg_advisory_lock"(42)',
  "select pg_notify('evil', 'x')",
  "select set_config('default_transaction_read_only', 'off', false)",
  "select pg_logical_emit_message(false, 'evil', 'x')",
  "select pg_switch_wal()",
  "select pg_stat_reset()",
  "select nextval('evil_seq')",
  "select dblink_exec('dbname=test', 'delete from skillsync_calls')",
  // SQLite settings and files.
  "pragma journal_mode = delete",
  "pragma journal_mode",
  "pragma main.journal_mode = delete",
  "pragma user_version = 7",
  "pragma wal_checkpoint(truncate)",
  "pragma writable_schema = 1",
  "pragma query_only = 0",
  "select * from pragma_journal_mode('delete')",
  // Time: each must end within its limit.
  "select pg_sleep(3600)",
  "select pg_sleep(20)",
  "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r",
  "with recursive r(n) as (values (1) union all select n + 1 from r) select max(n) from r",
  "select count(*) from generate_series(1, 1000000000000)",
  // Not SQL at all.
  "",
  ";",
  "   ",
  "-- only a comment",
  "select 'unterminated",
  "this is not sql",
];

/**
 * Issue 29 item 1: SQL given as text (query_to_xml and its family, cursors, functions someone else
 * made), and every power a superuser's session would lend it: administration, server files, large
 * objects, replication, configuration, locks, sequences, notifications, temporary objects.
 */
const TEXT_AS_SQL: string[] = [
  // Administration, directly (refused by name) and as text (refused by privilege).
  xml(RELOAD),
  xml2(RELOAD),
  "select pg_rotate_logfile()",
  xml("select pg_rotate_logfile()"),
  TERMINATE,
  xml(TERMINATE),
  xml2(TERMINATE),
  CANCEL,
  xml(CANCEL),
  // Its own session: cancelled (reported as stopped) or ended (the connection is closed, not reused).
  xml("select pg_cancel_backend(pg_backend_pid())"),
  xml("select pg_terminate_backend(pg_backend_pid())"),
  "select pg_promote(false)",
  xml("select pg_promote(false)"),
  xml("select pg_switch_wal()"),
  "select pg_create_restore_point('skillsync_evil')",
  xml("select pg_create_restore_point('skillsync_evil')"),
  xml("select pg_stat_reset()"),
  "select pg_stat_reset_shared('bgwriter')",
  xml("select pg_stat_reset_shared('bgwriter')"),
  xml("select pg_stat_reset_single_table_counters('user_rows'::regclass)"),
  xml("select pg_stat_reset_slru(null)"),
  xml("select pg_log_backend_memory_contexts(pg_backend_pid())"),
  xml("select pg_backup_start('skillsync_evil')"),
  xml(EMIT),
  xml("select pg_logical_emit_message(true, 'skillsync_evil', 'x')"),
  // Server files and large objects.
  READ_MARKER,
  xml(READ_MARKER),
  xml2(READ_MARKER),
  xml("select pg_read_file('{marker}', 0, 64, true)"),
  "select pg_read_binary_file('{marker}')",
  xml("select convert_from(pg_read_binary_file('{marker}'), 'utf8')"),
  "select pg_stat_file('{marker}')",
  xml("select pg_stat_file('{marker}')"),
  xml("select pg_read_file('/etc/passwd')"),
  xml("select pg_ls_dir('.')"),
  xml2("select pg_ls_dir('.')"),
  "select * from pg_ls_logdir()",
  xml("select * from pg_ls_logdir()"),
  xml("select * from pg_ls_waldir()"),
  "select * from pg_ls_waldir()",
  xml("select * from pg_ls_tmpdir()"),
  "select lo_import('{marker}')",
  xml("select lo_import('{marker}')"),
  xml("select lo_get(lo_import('{marker}'))"),
  xml("select lo_export(lo_from_bytea(0, 'x'), '{dir}/lo-export')"),
  "select lo_export(lo_from_bytea(0, 'x'), '{dir}/lo-export')",
  xml("select lo_from_bytea(0, 'skillsync_evil')"),
  "select current_setting('data_directory')",
  "select name, setting from pg_settings where name in ('data_directory', 'config_file', 'hba_file')",
  "select U&\"pg\\005fread\\005ffile\"('{marker}')",
  'select U&"pg\\005freload\\005fconf"()',
  // XML that reads files or the network: external entities and DTDs (the listener must hear nothing).
  `select xpath('/x/text()', xmlparse(document '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file://{marker}">]><x>&e;</x>'))`,
  xml(
    `select xpath('/x/text()', xmlparse(document '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'))`,
  ),
  `select xmlparse(document '<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://{http}/dtd"><x/>')`,
  `select * from xmltable('/x' passing xmlparse(document '<!DOCTYPE x [<!ENTITY e SYSTEM "http://{http}/entity">]><x>&e;</x>') columns v text path '.')`,
  // Replication.
  SLOT,
  xml(SLOT),
  xml2(SLOT),
  xml("select pg_create_physical_replication_slot('skillsync_evil_slot2')"),
  "select pg_create_logical_replication_slot('skillsync_evil_lslot', 'test_decoding')",
  xml("select pg_create_logical_replication_slot('skillsync_evil_lslot', 'test_decoding')"),
  "select pg_replication_origin_create('skillsync_evil_origin')",
  xml("select pg_replication_origin_create('skillsync_evil_origin')"),
  xml("select pg_replication_origin_session_setup('skillsync_evil_origin')"),
  xml("select pg_drop_replication_slot('skillsync_evil_slot')"),
  xml("select * from pg_logical_slot_get_changes('skillsync_evil_lslot', null, null)"),
  // Configuration: roles, the session's user, time limits, read-only mode.
  "select set_config('role', 'postgres', false)",
  xml("select set_config('role', 'postgres', false)"),
  xml2("select set_config('role', 'postgres', false)"),
  "select set_config('session_authorization', 'postgres', false)",
  xml("select set_config('session_authorization', 'postgres', false)"),
  xml("select set_config('statement_timeout', '0', false)"),
  `${xml("select set_config('statement_timeout', '0', false)")}, pg_sleep(20)`,
  xml("select set_config('default_transaction_read_only', 'off', false)"),
  xml("select set_config('transaction_read_only', 'off', true)"),
  "select set_config('transaction_read_only', 'off', true)",
  xml("select set_config('search_path', 'public', false)"),
  // SET ROLE back to the login inside a nested query, then use it (the login is the reader).
  `${xml("select set_config('role', session_user, true)")}, ${xml(RELOAD).replace("select ", "")}`,
  xml("select set_config('role', session_user, true), pg_read_file('{marker}')"),
  xml(
    `select (select set_config('role', session_user, true)) as r, pg_terminate_backend(pid) from pg_stat_activity where pid in ({sentinels})`,
  ),
  "select (select set_config('role', session_user, true)), pg_reload_conf()",
  xml("select set_config('lock_timeout', '0', false), pg_advisory_lock(4242)"),
  // Locks.
  xml("select pg_advisory_lock(4242)"),
  xml2("select pg_advisory_lock(4242)"),
  xml("select pg_try_advisory_lock(4243)"),
  "select pg_try_advisory_lock(4243)",
  xml("select pg_advisory_lock_shared(4244)"),
  xml("select pg_advisory_xact_lock(4245)"),
  xml("select 1 from skillsync_budgets for update"),
  // Sequences of the warehouse's own serial and identity columns.
  "select nextval('serial_rows_id_seq')",
  xml("select nextval('serial_rows_id_seq')"),
  xml2("select nextval('serial_rows_id_seq')"),
  "select setval('serial_rows_id_seq', 1000000)",
  xml("select setval('serial_rows_id_seq', 1000000)"),
  xml("select nextval('identity_rows_id_seq')"),
  xml("select currval('serial_rows_id_seq')"),
  // Notifications, transaction ids, temporary objects.
  xml("select pg_notify('skillsync_evil', 'x')"),
  "select txid_current()",
  xml("select pg_current_xact_id()"),
  xml("create temp table evil_tmp as select 1 as x"),
  xml("select 1 as x into temp evil_tmp2"),
  // Writes and files as text: the READ ONLY transaction and the privileges refuse them.
  xml("delete from skillsync_calls returning 1"),
  xml("with d as (delete from skillsync_calls returning 1) select count(*) from d"),
  xml("insert into user_rows (x) values (-1) returning x"),
  xml("update skillsync_budgets set reserved = 0 returning 1"),
  xml("copy (select 1) to '{dir}/xml-copy'"),
  xml("select pg_sleep(3600)"),
  xml(ENDLESS),
  // The rest of the family, and ways to hide the text from any list.
  "select query_to_xml_and_xmlschema('select pg_reload_conf()', true, false, '')",
  `select query_to_xmlschema(${lit(READ_MARKER)}, true, false, '')`,
  "select table_to_xml('v_reload', true, false, '')",
  "select table_to_xml('v_terminate', true, false, '')",
  "select table_to_xml_and_xmlschema('v_marker', true, false, '')",
  "select table_to_xml('pg_authid', true, false, '')",
  "select table_to_xml('skillsync_reader_login', true, false, '')",
  "select password from skillsync_reader_login",
  "select schema_to_xml(current_schema(), true, false, '')",
  "select schema_to_xml('public', true, false, '')",
  "select database_to_xml(true, false, '')",
  "select database_to_xml_and_xmlschema(true, false, '')",
  `select xpath('//text()', query_to_xml(${lit(READ_MARKER)}, true, false, ''))`,
  `select * from xmltable('/table/row' passing query_to_xml(${lit(`${TERMINATE.replace("select ", "select pg_backend_pid() as me, ")}`)}, true, false, '') columns me text)`,
  `select xmlelement(name x, query_to_xml(${lit(RELOAD)}, true, false, ''))`,
  "select query_to_xml(format('select %s()', 'pg_reload_conf'), true, false, '')",
  "select query_to_xml(convert_from(decode('c2VsZWN0IHBnX3JlbG9hZF9jb25mKCk=', 'base64'), 'utf8'), true, false, '')",
  "select query_to_xml('select pg_' || 'read_file(' || chr(39) || '{marker}' || chr(39) || ')', true, false, '')",
  "select query_to_xml(reverse(')(fnoc_daoler_gp tceles'), true, false, '')",
  `select query_to_xml(q, true, false, '') from (values (${lit(RELOAD)}), (${lit(READ_MARKER)})) v(q)`,
  `values (query_to_xml(${lit(RELOAD)}, true, false, ''))`,
  `with x as (${xml(TERMINATE)} as r) select * from x`,
  `explain ${xml(RELOAD)}`,
  xml("select 1 as harmless"),
  "table v_reload",
  "select * from v_terminate",
  // Cursors: opened by a function someone made, read as XML.
  "select cursor_to_xml(open_evil_cursor('select pg_reload_conf()'), 10, false, true, '')",
  `select cursor_to_xml(open_evil_cursor(${lit(READ_MARKER)}), 10, false, true, '')`,
  `select cursor_to_xml(open_evil_cursor(${lit(TERMINATE)}), 10, false, true, '')`,
  `select cursor_to_xml({pub}_cursor(${lit(SLOT)}), 10, false, true, '')`,
  "select cursor_to_xmlschema(open_evil_cursor('select 1 as x'), false, true, '')",
  "select cursor_to_xml('C_1'::refcursor, 1, false, true, '')",
  // Functions someone else made (as the superuser), SECURITY INVOKER: they run as the caller.
  "select evil_invoker_sql()",
  "select evil_invoker_plpgsql()",
  "select evil_setrole()",
  "select {pub}_fn('reload')",
  "select {pub}_fn('terminate')",
  "select {pub}_fn('cancel')",
  "select {pub}_fn('write')",
  "select {pub}_fn('copy')",
  "select {pub}_fn('program')",
  "select {pub}_fn('slot')",
  "select {pub}_fn('file')",
  "select {pub}_fn('lo')",
  "select {pub}_fn('role')",
  "select {pub}_fn('sequence')",
  xml("select {pub}_fn('terminate')"),
  `select {pub}_exec(${lit(RELOAD)})`,
  exec(RELOAD),
  exec(TERMINATE),
  exec(READ_MARKER),
  exec("select pg_create_physical_replication_slot('skillsync_evil_slot4')"),
  exec("insert into user_rows (x) values (-1)"),
  exec("copy (select 1) to '{dir}/exec-copy'"),
  exec("copy (select 1) to program 'id > {dir}/exec-program'"),
  exec("copy user_rows from '{marker}'"),
  exec("select setval('serial_rows_id_seq', 5)"),
  exec("lock table user_rows in access exclusive mode"),
  exec("set role postgres"),
  exec("reset role"),
  exec("set session authorization postgres"),
  exec("set session characteristics as transaction read write"),
  exec("set transaction read write"),
  exec("commit"),
  exec("alter system set work_mem = '1GB'"),
  exec("alter role current_user superuser"),
  exec("create role skillsync_evil_role superuser login"),
  exec("grant pg_read_server_files to current_user"),
  exec("load 'auto_explain'"),
  exec("create temp table evil_tmp3 (x int)"),
  exec("notify skillsync_evil"),
  exec("listen skillsync_evil"),
  exec("prepare skillsync_evil_p as select 1"),
  exec("declare skillsync_evil_c cursor with hold for select 1"),
];

/** Statements that need the dblink extension; the test runs them only where it is available. */
export const DBLINK_STATEMENTS: string[] = [
  xml("select dblink_exec('{conninfo}', 'select pg_reload_conf()')"),
  xml(`select * from dblink('{conninfo}', ${lit(READ_MARKER)}) as t(x text)`),
  xml("select dblink_connect('skillsync_evil', '{conninfo}')"),
  xml("select dblink_connect_u('skillsync_evil_u', '{conninfo}')"),
  exec("select dblink_exec('{conninfo}', 'select pg_reload_conf()')"),
];

export const HOSTILE_STATEMENTS: string[] = [...ISSUE_20, ...TEXT_AS_SQL];

/** The values of the placeholders (see the top of this file). */
export interface Fill {
  dir: string;
  marker: string;
  sentinels: string;
  http: string;
  pub: string;
  schema: string;
  conninfo: string;
}

/** A statement (or view body, or function) with its placeholders filled in. */
export function fill(text: string, f: Fill): string {
  return text.replace(/\{(dir|marker|sentinels|http|pub|schema|conninfo)\}/g, (_, k: keyof Fill) => f[k]);
}

/**
 * Functions "someone else" made earlier, as the superuser: in the warehouse's schema and in
 * `public`, all SECURITY INVOKER (they run with the privileges of whoever calls them). Each tries
 * what a superuser's session could do.
 */
export const SEED_FUNCTIONS: string[] = [
  "create function evil_exec(q text) returns text language plpgsql security invoker as $$ begin execute q; return 'done'; end $$",
  "create function evil_invoker_sql() returns text language sql security invoker as $$ select pg_reload_conf()::text $$",
  `create function evil_invoker_plpgsql() returns text language plpgsql security invoker as $$
   begin
     perform pg_terminate_backend(pid) from pg_stat_activity where pid in ({sentinels});
     perform pg_reload_conf();
     insert into user_rows (x) values (-1);
     execute 'copy (select 1) to ' || quote_literal('{dir}/plpgsql-copy');
     return 'done';
   end $$`,
  "create function evil_setrole() returns int language sql set role = postgres as 'select 1'",
  "create function open_evil_cursor(q text) returns refcursor language plpgsql as $$ declare c refcursor; begin open c for execute q; return c; end $$",
  `create function {pub}_fn(what text) returns text language plpgsql security invoker as $$
   begin
     if what = 'reload' then perform pg_reload_conf();
     elsif what = 'terminate' then perform pg_terminate_backend(pid) from pg_stat_activity where pid in ({sentinels});
     elsif what = 'cancel' then perform pg_cancel_backend(pid) from pg_stat_activity where pid in ({sentinels});
     elsif what = 'write' then insert into "{schema}".user_rows (x) values (-1);
     elsif what = 'copy' then execute 'copy (select 1) to ' || quote_literal('{dir}/public-copy');
     elsif what = 'program' then execute 'copy (select 1) to program ' || quote_literal('id > {dir}/public-program');
     elsif what = 'slot' then perform pg_create_physical_replication_slot('skillsync_evil_public_slot');
     elsif what = 'file' then return pg_read_file('{marker}');
     elsif what = 'lo' then return lo_import('{marker}')::text;
     elsif what = 'role' then perform set_config('role', 'postgres', false); perform pg_reload_conf();
     elsif what = 'sequence' then perform setval('"{schema}".serial_rows_id_seq', 1000000);
     end if;
     return 'done';
   end $$`,
  "create function {pub}_exec(q text) returns text language plpgsql security invoker as $$ begin execute q; return 'done'; end $$",
  "create function {pub}_cursor(q text) returns refcursor language plpgsql as $$ declare c refcursor; begin open c for execute q; return c; end $$",
];

/** Drops SEED_FUNCTIONS' functions in `public` and the views that call them (the schema's go with the schema). */
export const DROP_PUBLIC_FUNCTIONS =
  "drop function if exists {pub}_fn(text), {pub}_exec(text), {pub}_cursor(text) cascade";

/**
 * Selects a user might put in a view of their own: the server's table views, MCP's describe_table
 * and table resources read them (Postgres: views made as the superuser, so they run with its
 * rights on tables, but every function in them runs as the reader).
 */
export const HOSTILE_VIEWS: Record<"sqlite" | "postgres", Record<string, string>> = {
  sqlite: {
    endless_cte:
      "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) as n from r",
  },
  postgres: {
    endless_cte:
      "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) as n from r",
    sleeper: "select pg_sleep(3600)::text as n",
    v_reload: "select pg_reload_conf()::text as n",
    v_xml_reload: `select ${xml(RELOAD).replace("select ", "")}::text as n`,
    v_terminate:
      "select pg_terminate_backend(pid)::text as n from pg_stat_activity where pid in ({sentinels})",
    v_marker: "select pg_read_file('{marker}') as n",
    v_ls_dir: "select pg_ls_dir('.') as n",
    v_lo_import: "select lo_import('{marker}')::text as n",
    v_slot: "select pg_create_physical_replication_slot('skillsync_evil_view_slot', true)::text as n",
    v_origin: "select pg_replication_origin_create('skillsync_evil_view_origin')::text as n",
    v_set_role: "select set_config('role', 'postgres', false) || pg_reload_conf()::text as n",
    v_stats_reset: "select pg_stat_reset()::text as n",
    v_advisory: "select pg_advisory_lock(4246)::text as n",
    v_notify: "select pg_notify('skillsync_evil', 'from a view')::text as n",
    v_nextval: "select nextval('serial_rows_id_seq')::text as n",
    v_invoker: "select {pub}_fn('reload') as n",
    v_exec_copy: `select evil_exec(${lit("copy (select 1) to '{dir}/view-copy'")}) as n`,
    v_cursor:
      "select cursor_to_xml(open_evil_cursor('select pg_reload_conf()'), 10, false, true, '')::text as n",
    v_table_xml: "select table_to_xml('v_reload', true, false, '')::text as n",
    v_emit: "select pg_logical_emit_message(false, 'skillsync_evil', 'from a view')::text as n",
    v_prepare: `select evil_exec(${lit("prepare skillsync_evil_v as select 1")}) as n`,
    v_plain: "select x::text as n from user_rows",
  },
};

/** A view for the dblink extension, where it is available. */
export const DBLINK_VIEW = {
  v_dblink: "select dblink_exec('{conninfo}', 'select pg_reload_conf()') as n",
};
