/**
 * HTML made only by the `html` tag: every interpolated value is escaped unless it is already
 * `Html` (made by the tag itself), so a table's cell, a run's error or a hostile key can never
 * become markup. There is no other way to put text into a page.
 */
const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const escapeText = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return (v as readonly Part[]).map(render).join("");
  return escapeText(String(v));
}

/** @example html`<td>${cell}</td>` — `cell` is escaped; nested html`` is kept as markup. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/**
 * Data for the client's charts as a JSON block the browser never executes (so the CSP's
 * `script-src 'self'` allows it). `<` is escaped so no value can close the element.
 */
export function jsonScript(id: string, value: unknown): Html {
  const json = JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028|\u2029/g, "");
  return new Html(`<script type="application/json" id="${escapeText(id)}">${json}</script>`);
}

/** A number the browser formats in its own locale (web/console.ts); the raw value stays in `value`. */
export function num(value: number | null | undefined, unit?: string): Html {
  if (value === null || value === undefined || !Number.isFinite(value))
    return html`<span class="muted">–</span>`;
  return html`<data class="num" value="${value}"${unit ? html` data-unit="${unit}"` : ""}>${value}</data>`;
}

/** A time the browser shows in its own locale and zone; `day`: the date only. */
export function time(iso: string | null | undefined, day = false): Html {
  if (!iso) return html`<span class="muted">–</span>`;
  const shown = day ? iso.slice(0, 10) : `${iso.slice(0, 16).replace("T", " ")} UTC`;
  return html`<time datetime="${iso}"${day ? html` data-day` : ""}>${shown}</time>`;
}

/** A link's query string from the members that have a value. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
