import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { exportRows } from "../../../engine/publish/export.js";
import {
  countRows,
  readRows,
  stableOrder,
  tableColumns,
  userTables,
} from "../../../engine/publish/read-table.js";
import type { PageRequest } from "../context.js";
import { type Html, html, num, query } from "../html.js";
import { grid, missingPage, pageReply } from "../layout.js";
import type { ConsoleReply } from "../respond.js";
import { shown } from "./alert-rows.js";

const PAGE_ROWS = 100;
/** Deeper than this, a page is a query's job (`skillsync sql`, a download): an offset of 100,000 rows already costs Postgres ~0.2 s. */
const MAX_PAGE = 1_000;
const CELL_CHARS = 200;

const link = (t: string) => `/console/tables/${encodeURIComponent(t)}`;

/** `/console/tables`: every table and view, its rows, and where to browse or download it. */
export async function tablesPage(r: PageRequest): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const names = await userTables(w);
  const comments = r.c.comments;
  const body = grid({
    label: "Tables",
    head: ["Table", "What one row is", "Download"],
    rows: names.map(
      (t) => html`<tr><td><a href="${link(t)}">${t}</a></td><td>${comments.get(t)?.table ?? ""}</td>
<td><a href="${link(t)}.csv" download>CSV</a> · <a href="${link(t)}.parquet" download>Parquet</a></td></tr>`,
    ),
  });
  return pageReply(r, { title: "Tables", nav: "tables", body });
}

/** `/console/tables/:name?page=N`: a page of rows in key order, with the columns' comments. */
export async function tablePage(r: PageRequest, table: string): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  // Only a name the warehouse lists is ever put into SQL.
  if (!(await userTables(w)).includes(table)) {
    return missingPage(r, "tables", "No such table", `There is no table "${table}".`);
  }
  const info = await tableColumns(w, table, r.c.route.columnTypes);
  const page = Math.min(MAX_PAGE, Math.max(1, Math.trunc(Number(r.url.searchParams.get("page") ?? 1)) || 1));
  const [total, rows] = await Promise.all([
    countRows(w, table),
    readRows(w, table, {
      columns: info.map((c) => c.name),
      orderBy: await stableOrder(w, table, info),
      limit: PAGE_ROWS,
      offset: (page - 1) * PAGE_ROWS,
    }),
  ]);
  const comments = r.c.comments.get(table);
  const pages = Math.max(1, Math.ceil(total / PAGE_ROWS));
  const body = html`${comments?.table ? html`<p>${comments.table}</p>` : ""}
<p>${num(total)} rows · page ${num(page)} of ${num(pages)} ·
<a href="${link(table)}.csv" download>CSV</a> · <a href="${link(table)}.parquet" download>Parquet</a></p>
${grid({
  label: `${table}: rows`,
  head: info.map((c) => c.name),
  rows: rows.map((row) => html`<tr>${info.map((c) => html`<td>${cell(row[c.name])}</td>`)}</tr>`),
})}
${pager(table, page, pages)}
<h2>Columns</h2>
${grid({
  label: `${table}: columns`,
  head: ["Column", "Type", "What it holds"],
  rows: info.map(
    (c) =>
      html`<tr><td><code>${c.name}</code></td><td>${c.type ?? ""}</td><td>${comments?.columns[c.name] ?? ""}</td></tr>`,
  ),
})}`;
  return pageReply(r, { title: table, nav: "tables", body });
}

function cell(v: unknown): Html | string {
  if (typeof v === "number") return num(v);
  const s = shown(v);
  return s.length > CELL_CHARS ? `${s.slice(0, CELL_CHARS)}…` : s;
}

function pager(table: string, page: number, pages: number): Html {
  const to = (p: number) => `${link(table)}${query({ page: p })}`;
  return html`<nav class="pager" aria-label="Pages">${page > 1 ? html`<a href="${to(page - 1)}" rel="prev">Previous</a>` : ""}
${page < Math.min(pages, MAX_PAGE) ? html`<a href="${to(page + 1)}" rel="next">Next</a>` : ""}
${page >= MAX_PAGE && pages > MAX_PAGE ? html`<span class="muted">The console pages through the first ${num(MAX_PAGE * PAGE_ROWS)} rows; download the table, or query it with <code>skillsync sql</code>, for the rest.</span>` : ""}</nav>`;
}

/**
 * `/console/tables/:name.csv|.parquet`: the whole table through `skillsync export`'s path (the
 * reader login, a batch at a time, no row cap) into a temporary file, then streamed and removed.
 */
export async function download(r: PageRequest, file: string): Promise<ConsoleReply> {
  const format = file.endsWith(".csv") ? "csv" : "parquet";
  const table = file.slice(0, -(format.length + 1));
  const w = r.c.route.warehouse;
  if (!(await userTables(w)).includes(table))
    return { status: 404, text: `no table "${table.slice(0, 100)}"` };
  const dir = await mkdtemp(join(tmpdir(), "skillsync-console-"));
  try {
    const out = join(dir, `${table}.${format}`);
    await exportRows(w, { tables: [table], format, out, sinceLast: false, types: r.c.route.columnTypes });
    return {
      status: 200,
      type: format === "csv" ? "text/csv; charset=utf-8" : "application/vnd.apache.parquet",
      filename: `${table}.${format}`,
      stream: async (res) => {
        try {
          await pipeline(createReadStream(out), res);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
