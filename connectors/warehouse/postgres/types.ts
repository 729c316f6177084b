import { pgTypes } from "../open.js";

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

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
