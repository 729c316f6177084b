import { Transform, type TransformCallback } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** The text is not the JSON it should be (cut short, or broken). */
export class JsonStreamError extends Error {}

type Frame = { kind: "object" | "array"; key: string | null; expectKey: boolean };

const ESCAPES: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
  '"': '"',
  "\\": "\\",
  "/": "/",
};
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Streams one string member out of a JSON document as it arrives (e.g. `data.content` of a
 * download answer), decoded, in string chunks; everything else is kept as `rest`: the document with
 * that string emptied, small enough to parse and validate afterwards. A CSV of a million rows
 * passes through without ever being one string.
 *
 * @example
 * const x = new JsonMemberStream(["data", "content"]);
 * Readable.from(['{"code":0,"data":{"content":"a,b\\n1,2"}}']).pipe(x); // x yields "a,b\n1,2"; x.rest: '{"code":0,"data":{"content":""}}'
 */
export class JsonMemberStream extends Transform {
  /** The document without the member's text (the member reads `""`). */
  rest = "";
  /** Whether the member was found as a string. */
  found = false;
  private readonly decoder = new StringDecoder("utf8");
  private readonly stack: Frame[] = [];
  private mode: "normal" | "key" | "skip" | "member" = "normal";
  private key = "";
  private escaped = false;
  private hex: string | null = null;
  private held = "";

  constructor(private readonly path: string[]) {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer | string, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.scan(typeof chunk === "string" ? chunk : this.decoder.write(chunk));
      done();
    } catch (err) {
      done(err instanceof JsonStreamError ? err : new JsonStreamError(String(err)));
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.scan(this.decoder.end());
      if (this.mode !== "normal" || this.stack.length) throw new JsonStreamError("the JSON text ended early");
      if (this.held) this.push(this.held);
      done();
    } catch (err) {
      done(err instanceof JsonStreamError ? err : new JsonStreamError(String(err)));
    }
  }

  private scan(text: string): void {
    let out = this.held;
    this.held = "";
    let i = 0;
    while (i < text.length) {
      if (this.mode === "member") {
        if (this.hex !== null) {
          const need = 4 - this.hex.length;
          this.hex += text.slice(i, i + need);
          i += Math.min(need, text.length - i);
          if (this.hex.length === 4) {
            out += String.fromCharCode(Number.parseInt(this.hex, 16));
            this.hex = null;
          }
          continue;
        }
        if (this.escaped) {
          const c = text[i++]!;
          this.escaped = false;
          if (c === "u") this.hex = "";
          else out += ESCAPES[c] ?? c;
          continue;
        }
        const q = text.indexOf('"', i);
        const b = text.indexOf("\\", i);
        const stop = q < 0 ? b : b < 0 ? q : Math.min(q, b);
        if (stop < 0) {
          out += text.slice(i);
          break;
        }
        out += text.slice(i, stop);
        i = stop + 1;
        if (text[stop] === "\\") this.escaped = true;
        else {
          this.mode = "normal";
          this.rest += '"';
        }
        continue;
      }
      const c = text[i++]!;
      if (this.mode === "key" || this.mode === "skip") {
        if (this.mode === "key") this.key += c;
        this.rest += c;
        if (this.escaped) this.escaped = false;
        else if (c === "\\") this.escaped = true;
        else if (c === '"') this.endString();
        continue;
      }
      this.rest += c;
      this.structural(c);
    }
    // A high surrogate from a \u escape waits for its pair, so no chunk ends in half a character.
    if (out && isHigh(out.charCodeAt(out.length - 1))) {
      this.held = out.slice(-1);
      out = out.slice(0, -1);
    }
    if (out) this.push(out);
  }

  private structural(c: string): void {
    const top = this.stack.at(-1);
    if (c === "{") this.stack.push({ kind: "object", key: null, expectKey: true });
    else if (c === "[") this.stack.push({ kind: "array", key: null, expectKey: false });
    else if (c === "}" || c === "]") this.stack.pop();
    else if (c === ":" && top) top.expectKey = false;
    else if (c === "," && top?.kind === "object") {
      top.expectKey = true;
      top.key = null;
    } else if (c === '"') {
      if (top?.kind === "object" && top.expectKey) {
        this.mode = "key";
        this.key = "";
      } else if (this.atPath()) {
        this.mode = "member";
        this.found = true;
      } else this.mode = "skip";
    }
  }

  private endString(): void {
    if (this.mode === "key") {
      const top = this.stack.at(-1)!;
      top.key = JSON.parse(`"${this.key.slice(0, -1)}"`) as string;
    }
    this.mode = "normal";
  }

  private atPath(): boolean {
    return (
      this.stack.length === this.path.length &&
      this.stack.every((f, i) => f.kind === "object" && f.key === this.path[i])
    );
  }
}
