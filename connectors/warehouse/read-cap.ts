/** What a read whose answer is bounded in bytes (`maxBytes`, `maxCellBytes`) did, once it is done. */
export interface ReadMeasure {
  /**
   * Why the read stopped before the statement's last row: `rows` (it reached `cutAt`; one more row
   * was read to know there is more), `bytes` (the next row would have passed `maxBytes`), or
   * undefined when every row came.
   */
  stoppedBy: "rows" | "bytes" | undefined;
  /** Cells longer than `maxCellBytes` that were cut (and marked). */
  cellsCut: number;
  /** The size of the rows returned as JSON, bytes (blobs counted as base64). */
  bytes: number;
}

export interface RowCapOptions {
  /** Stop before the row that would take the rows past this many bytes (the first row always comes). */
  maxBytes: number | undefined;
  /** Cut a longer cell to this many bytes, marker included. */
  maxCellBytes: number | undefined;
  /** Stop after this many rows and one more (the caller says the result was cut). */
  cutAt: number | undefined;
}

/**
 * The rows of one read as they stream in: each cell longer than `maxCellBytes` is cut and marked,
 * each row measured as JSON, and the read told to stop at `cutAt` rows or `maxBytes` — so a
 * hostile statement (a thousand rows of a megabyte each) is never held whole.
 *
 * A cut cell is always text: its first bytes, then `…[cut: first K of N bytes]` (K kept of N, in
 * UTF-8 bytes of the text, or of a JSON value's text); a blob becomes the base64 of its first K
 * bytes, then `…[cut: first K of N bytes, base64]`. The marker is within `maxCellBytes`.
 *
 * Self-contained on purpose: the SQLite reader process runs this same class from its source text
 * (`RowCap.toString()`, sqlite/read-only.ts), so it may use nothing but JavaScript's and Node's
 * globals — no imports, no module-level helpers.
 *
 * @example
 * const cap = new RowCap({ maxBytes: 1_048_576, maxCellBytes: 65_536, cutAt: 100 });
 * for (const row of rows) if (!cap.add(row)) break;
 * cap.rows; cap.measure();
 */
export class RowCap {
  readonly rows: Record<string, unknown>[] = [];
  /** The rows' size as JSON (the row read past `cutAt` not counted). */
  bytes = 0;
  /** Cells cut in the rows kept (the row read past `cutAt` not counted). */
  cellsCut = 0;
  stoppedBy: "rows" | "bytes" | undefined = undefined;
  /** Bytes of the values as they arrived (before cutting), to size a database's batches. */
  seenBytes = 0;
  seenRows = 0;
  readonly o: RowCapOptions;

  constructor(o: RowCapOptions) {
    this.o = o;
  }

  /** Takes the next row; false once no more rows are wanted. */
  add(row: Record<string, unknown>): boolean {
    const o = this.o;
    if (this.stoppedBy !== undefined) return false;
    this.seenRows++;
    const cutBefore = this.cellsCut;
    let kept = this.cutRow(row, o.maxCellBytes);
    if (o.cutAt !== undefined && this.rows.length >= o.cutAt) {
      // The row past the cut: kept only so the caller sees there was more, and not counted.
      this.rows.push(kept);
      this.cellsCut = cutBefore;
      this.stoppedBy = "rows";
      return false;
    }
    if (o.maxBytes !== undefined) {
      let size = this.rowBytes(kept);
      if (this.rows.length === 0 && size > o.maxBytes) {
        // A first row wider than the whole answer still comes (a page must move on), its cells
        // cut to an equal share of the answer.
        const keys = Object.keys(row);
        let keyBytes = 2;
        for (const key of keys) keyBytes += Buffer.byteLength(key) + 6;
        const share = Math.max(128, Math.floor((o.maxBytes - keyBytes) / Math.max(1, keys.length)));
        this.cellsCut = cutBefore;
        kept = this.cutRow(row, Math.min(share, o.maxCellBytes ?? share));
        size = this.rowBytes(kept);
      }
      if (this.rows.length > 0 && this.bytes + size > o.maxBytes) {
        this.cellsCut = cutBefore;
        this.stoppedBy = "bytes";
        return false;
      }
      this.bytes += size;
    }
    this.rows.push(kept);
    return true;
  }

  /** The row with each cell within `max` bytes (the row itself when nothing is bounded). */
  cutRow(row: Record<string, unknown>, max: number | undefined): Record<string, unknown> {
    if (max === undefined && this.o.maxBytes === undefined) return row;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(row)) {
      // A column named __proto__ stays a column (an assignment would set the object's prototype).
      const value = this.cell(row[key], max);
      if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true });
      else out[key] = value;
    }
    return out;
  }

  measure(): { stoppedBy: "rows" | "bytes" | undefined; cellsCut: number; bytes: number } {
    return { stoppedBy: this.stoppedBy, cellsCut: this.cellsCut, bytes: this.bytes };
  }

  /** A value within `max` bytes, or its head and the marker (as text). */
  cell(value: unknown, max: number | undefined): unknown {
    if (value === null || typeof value === "number" || typeof value === "boolean") return value;
    if (typeof value === "string") {
      this.seenBytes += value.length;
      if (max === undefined || value.length * 3 <= max) return value;
      const size = Buffer.byteLength(value);
      if (size <= max) return value;
      return this.cutText(value, size, max);
    }
    if (value instanceof Uint8Array) {
      this.seenBytes += value.length;
      if (max === undefined || Math.ceil(value.length / 3) * 4 <= max) return value;
      // The marker's room, then as many bytes as base64 carries in what is left (3 per 4 characters).
      const kept = Math.max(0, Math.floor((max - 64) / 4) * 3);
      this.cellsCut++;
      const head = Buffer.from(value.buffer, value.byteOffset, kept).toString("base64");
      return `${head}…[cut: first ${kept} of ${value.length} bytes, base64]`;
    }
    if (max === undefined || typeof value === "bigint" || value instanceof Date) return value;
    // JSON values (Postgres json, jsonb, arrays): cut as their text when too long.
    const text = JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    if (text === undefined) return value;
    this.seenBytes += text.length;
    if (text.length * 3 <= max) return value;
    const size = Buffer.byteLength(text);
    return size <= max ? value : this.cutText(text, size, max);
  }

  cutText(text: string, size: number, max: number): string {
    // The first `max` characters hold at least `max` bytes; the head ends on a character boundary.
    const bytes = Buffer.from(text.slice(0, max));
    let kept = Math.max(0, max - 64);
    while (kept > 0 && ((bytes[kept] ?? 0) & 0xc0) === 0x80) kept--;
    this.cellsCut++;
    return `${bytes.toString("utf8", 0, kept)}…[cut: first ${kept} of ${size} bytes]`;
  }

  /** The row's size as JSON: keys, values (blobs as base64), punctuation. */
  rowBytes(row: Record<string, unknown>): number {
    let size = 2;
    for (const key of Object.keys(row)) {
      const v = row[key];
      size += Buffer.byteLength(key) + 4;
      if (v === null || v === undefined) size += 4;
      else if (typeof v === "string") size += Buffer.byteLength(JSON.stringify(v));
      else if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint")
        size += String(v).length + 2;
      else if (v instanceof Uint8Array) size += Math.ceil(v.length / 3) * 4 + 14;
      else if (v instanceof Date) size += 26;
      else {
        const text = JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
        size += text === undefined ? 4 : Buffer.byteLength(text);
      }
    }
    return size;
  }
}
