import type { PageRequest } from "./context.js";
import { type Html, html } from "./html.js";
import type { ConsoleReply } from "./respond.js";

/** The console's pages as the top navigation lists them. */
const NAV = [
  { id: "overview", href: "/", label: "Overview" },
  { id: "runs", href: "/console/runs", label: "Runs" },
  { id: "schedules", href: "/console/schedules", label: "Schedules" },
  { id: "changes", href: "/console/changes", label: "Changes & alerts" },
  { id: "tables", href: "/console/tables", label: "Tables" },
] as const;

export type NavId = (typeof NAV)[number]["id"];

/** A page of the console: its head (the bundled stylesheet and script only), the navigation, the body. */
export function layout(o: { title: string; nav?: NavId; body: Html; csrf?: string | undefined }): Html {
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · skillsync</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head>
<body>
<header>
<nav class="top" aria-label="Console">
<span class="brand">skillsync</span>
${NAV.map((n) => html`<a href="${n.href}"${n.id === o.nav ? html` aria-current="page"` : ""}>${n.label}</a>`)}
${o.csrf ? signOut(o.csrf) : ""}
</nav>
</header>
<main id="main">
<h1>${o.title}</h1>
${o.body}
</main>
</body>
</html>`;
}

function signOut(csrf: string): Html {
  return html`<form class="signout" method="post" action="/console/signout">
<input type="hidden" name="csrf" value="${csrf}"><button class="act">Sign out</button></form>`;
}

/** A signed-in page: the layout with the session's sign-out form. */
export function pageReply(
  r: PageRequest,
  o: { title: string; nav: NavId; body: Html },
  status = 200,
): ConsoleReply {
  return { status, page: layout({ ...o, csrf: r.session.csrf }) };
}

/** 404: a message in place of a page's content (an unknown run, a table that is not there). */
export function missingPage(r: PageRequest, nav: NavId, title: string, text: string): ConsoleReply {
  return pageReply(r, { title, nav, body: html`<p class="error" role="alert">${text}</p>` }, 404);
}

/** A chart: the client draws SPEC into `.plot`; the same figures sit below as a table. */
export function chart(o: { id: string; title: string; label: string; table: Html }): Html {
  return html`<figure class="chart" data-chart="${o.id}">
<figcaption>${o.title}</figcaption>
<div class="plot" role="img" aria-label="${o.label}"></div>
<details><summary>Data</summary><div class="scroll" tabindex="0" role="region" aria-label="${o.title}: data">${o.table}</div></details>
</figure>`;
}

/** A table of rows: headers, then each row's cells (numbers right-aligned by `n`). */
export function grid(o: {
  label: string;
  head: readonly (string | { text: string; n: true })[];
  rows: readonly Html[];
}): Html {
  const th = o.head.map((h) =>
    typeof h === "string" ? html`<th scope="col">${h}</th>` : html`<th scope="col" class="n">${h.text}</th>`,
  );
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${o.label}">
<table class="grid"><thead><tr>${th}</tr></thead><tbody>${o.rows}</tbody></table></div>`;
}
