import type { FileColumnType } from "./row-file-types.js";

/**
 * The converter of one column: a warehouse value as a row file carries it, in its plain JavaScript
 * form — integers as BigInt (exact), reals as numbers, booleans as booleans (SQLite's 0/1 too),
 * dates and timestamps as ISO text, JSON as its text, text as text, bytes as a Uint8Array; null
 * stays null. A value that cannot be of the column's type is an error naming the column.
 *
 * @example converterOf("boolean", "sponsored")(1n) // true
 */
export function converterOf(type: FileColumnType, column: string): (value: unknown) => unknown {
  const notA = (value: unknown, what: string): never => {
    const shown = typeof value === "string" ? `"${value.slice(0, 40)}"` : String(value).slice(0, 40);
    throw new Error(`column ${column}: ${shown} is not ${what}`);
  };
  switch (type) {
    case "integer":
      return (v) => {
        if (v === null || v === undefined) return null;
        if (typeof v === "bigint") return v;
        if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
        if (typeof v === "string" && /^\s*-?\d+\s*$/.test(v)) return BigInt(v.trim());
        if (typeof v === "boolean") return v ? 1n : 0n;
        return notA(v, "an integer");
      };
    case "number":
    case "decimal":
      return (v) => {
        if (v === null || v === undefined) return null;
        if (typeof v === "number") return v;
        if (typeof v === "bigint") return Number(v);
        if (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v))) return Number(v);
        return notA(v, "a number");
      };
    case "boolean":
      return (v) => {
        if (v === null || v === undefined) return null;
        if (typeof v === "boolean") return v;
        if (typeof v === "number" || typeof v === "bigint") return Number(v) !== 0;
        if (v === "true" || v === "false") return v === "true";
        return notA(v, "a boolean");
      };
    case "date":
    case "timestamp":
      return (v) => {
        if (v === null || v === undefined) return null;
        if (v instanceof Date) return type === "date" ? v.toISOString().slice(0, 10) : v.toISOString();
        return String(v);
      };
    case "json":
      return (v) => {
        if (v === null || v === undefined) return null;
        return typeof v === "string" ? v : JSON.stringify(v, bigintsAsDigits);
      };
    case "blob":
      return (v) => {
        if (v === null || v === undefined) return null;
        return v instanceof Uint8Array ? v : Buffer.from(String(v));
      };
    default:
      return (v) => {
        if (v === null || v === undefined) return null;
        if (typeof v === "string") return v;
        if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
        return typeof v === "object" ? JSON.stringify(v, bigintsAsDigits) : String(v);
      };
  }
}

/** JSON.stringify's replacer for BigInt (which it refuses): its digits, as a string. */
function bigintsAsDigits(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v;
}
