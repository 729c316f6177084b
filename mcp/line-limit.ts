import { Transform, type TransformCallback } from "node:stream";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * The longest request line the MCP server reads: 1 MiB. The longest a tool takes is far less (the
 * `query` tool's sql is at most 100,000 characters; the HTTP server takes 64 KB bodies).
 */
const MAX_REQUEST_LINE_BYTES = 1_048_576;

/** How much of a refused line's start and end is kept to find its id. */
const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 4 * 1024;

/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;

/** JSON-RPC's "Parse error". */
const PARSE_ERROR = -32700;

/**
 * stdin in front of the SDK's stdio transport: each line goes through whole, as one chunk (the
 * transport then never joins pieces), and a line longer than `limit` bytes is dropped as it
 * streams — only its first 64 KB and last 4 KB are kept, to find its id — and answered with a
 * JSON-RPC error (-32600, with the request's id when its start or its end shows it, else null), so
 * the session goes on. (The SDK's own client writes the id last, after the params.)
 * Without it the SDK buffers the line up to 10 MB and then closes the session.
 *
 * A line within the limit that is not JSON is answered with -32700 (id null), and JSON that is no
 * JSON-RPC message with -32600 (with its id when it has one); a blank line is skipped. The SDK
 * would drop either without a word, leaving the client waiting.
 */
export class LineLimit extends Transform {
  readonly #limit: number;
  readonly #refuse: (answer: string) => void;
  #parts: Buffer[] = [];
  #size = 0;
  /** The start of a line already over the limit; undefined while the line is within it. */
  #head: Buffer | undefined;
  /** The end of such a line so far. */
  #tail = Buffer.alloc(0);

  /** `refuse` gets the error answer to write to the client (one line, newline included). */
  constructor(refuse: (answer: string) => void, limit = MAX_REQUEST_LINE_BYTES) {
    super();
    this.#limit = limit;
    this.#refuse = refuse;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl < 0) break;
      this.#take(chunk.subarray(from, nl + 1));
      this.#endLine();
      from = nl + 1;
    }
    if (from < chunk.length) this.#take(chunk.subarray(from));
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line without its newline: the transport would never read it whole either.
    if (this.#head === undefined && this.#size > 0) this.push(Buffer.concat(this.#parts));
    done();
  }

  #take(piece: Buffer): void {
    this.#size += piece.length;
    if (this.#head !== undefined) {
      const end = piece.subarray(Math.max(0, piece.length - TAIL_BYTES));
      this.#tail = Buffer.concat([this.#tail, end]).subarray(-TAIL_BYTES);
      return;
    }
    if (this.#size <= this.#limit) {
      this.#parts.push(piece);
      return;
    }
    // Copied, so that the big chunks it came in can be freed.
    const line = Buffer.concat([...this.#parts, piece]);
    this.#head = Buffer.from(line.subarray(0, HEAD_BYTES));
    this.#tail = Buffer.from(line.subarray(-TAIL_BYTES));
    this.#parts = [];
  }

  #endLine(): void {
    if (this.#head === undefined) {
      const line = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
      const refusal = unreadable(line);
      if (refusal === undefined) this.push(line);
      else if (refusal !== "") this.#refuse(refusal);
    } else {
      const id = requestIdOf(this.#head.toString("utf8")) ?? lastId(this.#tail.toString("utf8"));
      this.#refuse(tooLong(id, this.#size, this.#limit));
    }
    this.#parts = [];
    this.#size = 0;
    this.#head = undefined;
    this.#tail = Buffer.alloc(0);
  }
}

/**
 * The error answer for a line the SDK could not take as a JSON-RPC message, "" for a blank line
 * (nothing to answer), undefined for a line to pass on.
 */
function unreadable(line: Buffer): string | undefined {
  const text = line.toString("utf8").trim();
  if (text === "") return "";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const message = `Parse error: the line is not JSON (${why}); it was not read and nothing was done. Send one JSON-RPC message per line`;
    return errorAnswer(null, PARSE_ERROR, message);
  }
  if (JSONRPCMessageSchema.safeParse(value).success) return undefined;
  const id = (value as { id?: unknown } | null)?.id;
  const message =
    'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (an object with "jsonrpc":"2.0" and a "method", or a "result" or "error" with an "id"); it was not read and nothing was done';
  return errorAnswer(typeof id === "string" || typeof id === "number" ? id : null, INVALID_REQUEST, message);
}

function errorAnswer(id: string | number | null, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`;
}

function tooLong(id: string | number | null, size: number, limit: number): string {
  const message = `the request is ${size.toLocaleString("en-US")} bytes, over this server's limit of ${limit.toLocaleString("en-US")} bytes for one message; it was not read and nothing was done. Send a smaller request (the query tool's sql is at most 100,000 characters; split a long params list over several runs)`;
  return errorAnswer(id, INVALID_REQUEST, message);
}

/**
 * The `id` member when it is the last of the line's object, as `tail` (the line's end) shows it:
 * `…,"id":7}` at the very end. A member right before the final brace belongs to the top level (a
 * nested object's would be followed by its own brace), and `,` or `{` before its name keeps a
 * quoted `\"id\"` inside a string out.
 *
 * @example lastId('…"arguments":{"sql":"select 1"}},"jsonrpc":"2.0","id":3}') // 3
 */
export function lastId(tail: string): string | number | null {
  const m = /[,{]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  if (!m) return null;
  try {
    const id: unknown = JSON.parse(m[1]!);
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

/**
 * The `id` member of the JSON object a line starts with, as far as `head` (the line's start) shows
 * it: only the top level counts (an `id` inside `params` is not the request's), and only a string
 * or a number is an id. Null when it is not there, or not yet.
 *
 * @example requestIdOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"sql":"sel') // 7
 */
export function requestIdOf(head: string): string | number | null {
  try {
    return idMember(head);
  } catch {
    return null; // not JSON where it should be (a bad escape, a word that is no literal)
  }
}

function idMember(head: string): string | number | null {
  let i = skipSpace(head, 0);
  if (head[i] !== "{") return null;
  i = skipSpace(head, i + 1);
  while (i < head.length && head[i] === '"') {
    const keyEnd = stringEnd(head, i);
    if (keyEnd === undefined) return null;
    const key = JSON.parse(head.slice(i, keyEnd)) as string;
    i = skipSpace(head, keyEnd);
    if (head[i] !== ":") return null;
    i = skipSpace(head, i + 1);
    const valueEnd = valueEndAt(head, i);
    if (valueEnd === undefined) return null;
    if (key === "id") {
      const value: unknown = JSON.parse(head.slice(i, valueEnd));
      return typeof value === "string" || typeof value === "number" ? value : null;
    }
    i = skipSpace(head, valueEnd);
    if (head[i] !== ",") return null;
    i = skipSpace(head, i + 1);
  }
  return null;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && (s[i] === " " || s[i] === "\t" || s[i] === "\r" || s[i] === "\n")) i++;
  return i;
}

/** Past the closing quote of the string starting at `i`, or undefined when it does not end in `s`. */
function stringEnd(s: string, i: number): number | undefined {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (s[j] === '"') return j + 1;
  }
  return undefined;
}

/** Past the JSON value starting at `i` (nested ones skipped whole), or undefined when `s` ends first. */
function valueEndAt(s: string, i: number): number | undefined {
  if (s[i] === '"') return stringEnd(s, i);
  if (s[i] !== "{" && s[i] !== "[") {
    const m = /^[^,}\]\s]+/.exec(s.slice(i, i + 64));
    const end = m ? i + m[0].length : i;
    return end < s.length && end > i ? end : undefined;
  }
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === '"') {
      const end = stringEnd(s, j);
      if (end === undefined) return undefined;
      j = end - 1;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return undefined;
}
