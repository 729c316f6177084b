/** Pipeline files of the date-window tests. */

/** A windowed patent search; `window` is the block's text, `extra` more lines at the top level. */
export function datedYaml(
  o: { window?: string; mode?: string; request?: string; extra?: string } = {},
): string {
  return `name: dated-search
skill: websearch-patent-search
params:
  q: { repeatable: true, required: true }
  start: { type: date, required: true }
  end: { type: date, default: yesterday }
  step: { default: 1d }
input: { name: q, from: { param: q } }
window: ${o.window ?? '{ start: "{{start}}", end: "{{end}}", step: "{{step}}", lookback: 3d }'}
request:
${
  o.request ??
  `  q: "{{q}}"
  after: "publication:{{window.start:yyyymmdd}}"
  before: "publication:{{window.end:yyyymmdd}}"`
}
freshness: 24h
records:
  path: results
  table: dated_search
  key: [query, after, position]
  mode: ${o.mode ?? "merge"}
  columns:
    query: { from: $request.q }
    after: { from: $request.after }
    position: integer
    publication_number: text
${o.extra ?? ""}`;
}
