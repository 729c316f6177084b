import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { stringify } from "csv-stringify/sync";
import { converterOf } from "./cell-converters.js";
import type { FileColumn, RowFileWriter } from "./row-file-types.js";

/**
 * CSV (RFC 4180 by csv-stringify: a header of the column names, `,`, quotes where needed, empty
 * for null, booleans as true/false, bytes as base64) or JSON Lines (one object per line, keys the
 * column names in order; integers past 2^53 written with every digit, bytes as base64).
 */
export async function createTextWriter(
  format: "csv" | "jsonl",
  path: string,
  columns: FileColumn[],
): Promise<RowFileWriter> {
  const out = createWriteStream(path, { flags: "w" });
  await once(out, "open");
  // A failed write (a full disk) fails the next write or the finish; after abort it is expected.
  let failed: Error | undefined;
  out.on("error", (err) => {
    failed ??= err;
  });
  const convert = columns.map((c) => converterOf(c.type, c.name));
  const keys = columns.map((c) => `${JSON.stringify(c.name)}:`);
  if (format === "csv") await put(out, stringify([columns.map((c) => c.name)]), failed);
  const text =
    format === "csv"
      ? (rows: readonly (readonly unknown[])[]) =>
          stringify(rows.map((r) => convert.map((f, i) => csvCell(f(r[i])))))
      : (rows: readonly (readonly unknown[])[]) => {
          let lines = "";
          for (const r of rows) {
            let line = "{";
            for (let i = 0; i < convert.length; i++) {
              line += `${i ? "," : ""}${keys[i]}${jsonValue(convert[i]!(r[i]))}`;
            }
            lines += `${line}}\n`;
          }
          return lines;
        };
  return {
    async write(rows) {
      if (rows.length) await put(out, text(rows), failed);
    },
    async finish() {
      out.end();
      await once(out, "close");
      if (failed) throw failed;
    },
    async abort() {
      out.destroy();
      await rm(path, { force: true });
    },
  };
}

async function put(out: WriteStream, text: string, failed: Error | undefined): Promise<void> {
  if (failed) throw failed;
  if (!out.write(text)) await once(out, "drain");
}

function csvCell(v: unknown): string | null {
  if (v === null) return null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  return String(v);
}

function jsonValue(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return JSON.stringify(Buffer.from(v).toString("base64"));
  return JSON.stringify(v) ?? "null";
}
