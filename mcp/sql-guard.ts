import { ValidationError } from "../core/errors.js";

const STARTS = new Set(["select", "with", "values", "explain"]);

// Words that only a statement changing something (or a session) contains. The read-only session
// is the real guard; this refuses the obvious early, with a message an agent can act on.
const WRITES =
  /\b(insert|update|delete|merge|upsert|replace\s+into|drop|alter|create|truncate|attach|detach|pragma|copy|vacuum|reindex|grant|revoke|into|commit|rollback|savepoint|lock|set_config|load_extension|pg_read_file|pg_read_binary_file|pg_ls_dir|lo_import|lo_export|dblink|dblink_exec|pg_terminate_backend|pg_cancel_backend|pg_sleep)\b/i;

/**
 * The statement's code with string literals, quoted identifiers and comments blanked out, so that
 * a `;` or a keyword inside them is not taken for SQL. Dollar quotes ($$…$$, $tag$…$tag$) are Postgres's.
 */
export function codeOnly(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const end = closing(text, i);
    if (end === undefined) {
      out += ch;
      i++;
    } else {
      out += " ";
      i = end;
    }
  }
  return out;
}

/** Where a literal, quoted name or comment starting at `i` ends (past it), or undefined. */
function closing(text: string, i: number): number | undefined {
  const ch = text[i]!;
  const two = text.slice(i, i + 2);
  if (two === "--") return endAt(text, "\n", i + 2);
  if (two === "/*") return endAt(text, "*/", i + 2);
  if (ch === "'" || ch === '"' || ch === "`") return endQuoted(text, ch, i + 1);
  if (ch === "[") return endAt(text, "]", i + 1);
  const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i))?.[0];
  return tag ? endAt(text, tag, i + tag.length) : undefined;
}

function endAt(text: string, close: string, from: number): number {
  const j = text.indexOf(close, from);
  return j < 0 ? text.length : j + close.length;
}

/** A quote closes at its first single occurrence; a doubled one ('' or "") is an escaped quote. */
function endQuoted(text: string, quote: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] !== quote) continue;
    if (text[j + 1] === quote) j++;
    else return j + 1;
  }
  return text.length;
}

/**
 * Refuses anything but one SELECT, WITH, VALUES or EXPLAIN statement that names nothing that
 * writes: a first line of defence in front of the read-only session (`readOnlyQuery`).
 *
 * @example checkReadOnlySql("select * from t; drop table t") // throws ValidationError
 */
export function checkReadOnlySql(text: string): void {
  const code = codeOnly(text).trim().replace(/;\s*$/, "");
  const refuse = (message: string) => {
    throw new ValidationError("SQL query", [{ path: ["sql"], message }]);
  };
  if (code === "") refuse("is empty: give one SELECT statement");
  if (code.includes(";"))
    refuse("holds more than one statement: send one SELECT (or WITH, VALUES, EXPLAIN) at a time");
  const first = /^[(\s]*([A-Za-z]+)/.exec(code)?.[1]?.toLowerCase() ?? "";
  if (!STARTS.has(first)) {
    refuse(
      `starts with "${first || code.slice(0, 20)}": only SELECT, WITH, VALUES and EXPLAIN are allowed; the warehouse is read-only here (load data with the run tool)`,
    );
  }
  const write = WRITES.exec(code)?.[1];
  if (write)
    refuse(
      `uses "${write.toLowerCase()}", which changes the database or reads outside it; queries here are read-only`,
    );
}
