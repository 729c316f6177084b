import pg from "pg";

const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_DATE = 1082;
const PG_TIMESTAMPTZ = 1184;
const PG_TIMESTAMP = 1114;

// Numbers as numbers, dates as ISO text: the same values come back from SQLite and Postgres.
export const pgTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return (v: string) => Number(v);
    if (oid === PG_DATE) return (v: string) => v;
    if (oid === PG_TIMESTAMPTZ || oid === PG_TIMESTAMP) return (v: string) => new Date(v).toISOString();
    return pg.types.getTypeParser(oid, format ?? "text");
  },
};

/** Integers a double cannot hold stay BigInt; every other number is a number as usual. */
function exactNumber(text: string): number | bigint {
  const n = Number(text);
  return /^-?\d+$/.test(text) && !Number.isSafeInteger(n) ? BigInt(text) : n;
}

/** The warehouse's own parsers, except int8 and numeric past 2^53, which stay exact (BigInt). */
export const exactPgTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return exactNumber;
    return pgTypes.getTypeParser(oid, format);
  },
};
