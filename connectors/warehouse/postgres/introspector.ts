import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresDialect,
  PostgresIntrospector,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from "kysely";

interface ColumnRow {
  column: string;
  not_null: boolean;
  has_default: boolean;
  table: string;
  table_type: string;
  schema: string;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

/**
 * Kysely's Postgres introspection, limited to the warehouse's own schema (the connection's
 * `search_path`, so `current_schema()`). Kysely's own reads the columns of every schema of the
 * database and looks up each column's sequence by name: when another session drops a schema
 * meanwhile (a teammate's warehouse, a test's), that read fails ("schema … does not exist",
 * "column id of relation … does not exist"), and with it a migration that had nothing to do with
 * that schema. It also grew with the number of schemas. The migrator only asks which of our
 * tables exist.
 */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    // A plain read of pg_namespace: nothing in it is looked up by name.
    return new PostgresIntrospector(this.#db).getSchemas();
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables
      ? sql``
      : sql`and c.relname not in ('kysely_migration', 'kysely_migration_lock')`;
    const rows = await sql<ColumnRow>`select a.attname as "column", a.attnotnull as not_null,
        a.atthasdef as has_default, c.relname as "table", c.relkind as table_type,
        ns.nspname as "schema", typ.typname as "type", dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) as auto_incrementing
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on a.attrelid = c.oid
      join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
      join pg_catalog.pg_type typ on a.atttypid = typ.oid
      join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
        and a.attnum >= 0 and not a.attisdropped ${internal}
      order by c.relname, a.attnum`.execute(this.#db);
    return tablesOf(rows.rows);
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** Kysely's table metadata from one row per column (rows ordered by table). */
function tablesOf(rows: readonly ColumnRow[]): TableMetadata[] {
  const tables = new Map<string, TableMetadata & { columns: TableMetadata["columns"][number][] }>();
  for (const r of rows) {
    let t = tables.get(r.table);
    if (!t) {
      t = { name: r.table, schema: r.schema, isView: r.table_type === "v", columns: [] };
      tables.set(r.table, t);
    }
    t.columns.push({
      name: r.column,
      dataType: r.type,
      dataTypeSchema: r.type_schema,
      isNullable: !r.not_null,
      isAutoIncrementing: r.auto_incrementing !== null,
      hasDefaultValue: r.has_default,
      ...(r.column_description ? { comment: r.column_description } : {}),
    });
  }
  return [...tables.values()];
}

/** Kysely's Postgres dialect with the warehouse's introspection (OwnSchemaIntrospector). */
export class WarehousePostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
