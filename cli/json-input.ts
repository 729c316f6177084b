import { READ_LIMITS, readBoundedText } from "../core/bounded-read.js";
import { ExitCode, SkillsyncError, ValidationError } from "../core/errors.js";

/**
 * Parses JSON a user typed or saved, and on failure says where it broke as `where:line:column`.
 * Exit code 2: nothing was sent.
 *
 * @example
 * parseJsonInput('{"q": }', "--body"); // throws: --body:1:7: not valid JSON: Unexpected token '}'
 */
export function parseJsonInput(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const stated = /at position (\d+)/.exec(message)?.[1];
    const offset = stated === undefined ? errorOffset(text) : Number(stated);
    const reason = message
      .replace(/ in JSON at position \d+.*$/, "")
      .replace(/, ".*" is not valid JSON$/s, "");
    const { line, column } = lineColumn(text, offset);
    throw new SkillsyncError(
      "USAGE",
      `${where}:${line}:${column}: not valid JSON: ${reason}`,
      ExitCode.usage,
    );
  }
}

/** Reads the JSON body of a command from `--body` text or a `--body-file` path (exactly one). */
export async function readJsonBody(opts: {
  body?: string | undefined;
  bodyFile?: string | undefined;
}): Promise<unknown> {
  if ((opts.body === undefined) === (opts.bodyFile === undefined)) {
    throw new SkillsyncError(
      "USAGE",
      "give the request body with exactly one of --body '<json>' or --body-file PATH",
      ExitCode.usage,
    );
  }
  if (opts.body !== undefined) return parseJsonInput(opts.body, "--body");
  const path = opts.bodyFile as string;
  let text: string;
  try {
    text = readBoundedText(path, {
      maxBytes: READ_LIMITS.valuesFileBytes,
      what: "--body-file",
      instead: "a request body this large is not one the API takes; check the file",
    });
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new SkillsyncError("USAGE", `cannot read --body-file ${path} (${code})`, ExitCode.usage);
  }
  return parseJsonInput(text, path);
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Where JSON.parse gave up, for the messages where V8 names the token but not its position.
 * A small recursive scan of the JSON grammar; it returns the offset of the first bad character.
 */
function errorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const expect = (c: string) => (text[i] === c ? i++ : fail());
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    expect('"');
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m || m[0] === "-") fail();
    i += m![0].length;
  };
  const literal = () => {
    const word = ["true", "false", "null"].find((w) => w[0] === text[i]);
    if (!word) fail();
    for (const c of word!) expect(c);
  };
  const list = (close: string, item: () => void) => {
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      ws();
      if (text[i] === close) return void i++;
      expect(",");
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      list("}", () => {
        ws();
        string();
        ws();
        expect(":");
        value();
      });
    } else if (c === "[") list("]", value);
    else if (c === '"') string();
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) number();
    else literal();
  };
  try {
    value();
    ws();
    return i;
  } catch (at) {
    return typeof at === "number" ? Math.min(at, text.length) : 0;
  }
}
