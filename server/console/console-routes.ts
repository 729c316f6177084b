import type { PageRequest } from "./context.js";
import { changesPage, historyPage } from "./pages/changes.js";
import { overviewPage } from "./pages/overview.js";
import { runPage } from "./pages/run.js";
import { runsPage } from "./pages/runs.js";
import { scheduleAction, schedulesPage } from "./pages/schedules.js";
import { download, tablePage, tablesPage } from "./pages/tables.js";
import type { ConsoleReply } from "./respond.js";

const notFound = (r: PageRequest): ConsoleReply => ({
  status: 404,
  text: `no page ${r.url.pathname.slice(0, 200)}`,
});

/** The page (or action) a signed-in request's path names. */
export async function consolePage(r: PageRequest): Promise<ConsoleReply> {
  const [top, id, action, ...rest] = r.parts;
  if (rest.length) return notFound(r);
  if (r.method === "POST") {
    return top === "schedules" && id !== undefined && action !== undefined
      ? scheduleAction(r, id, action)
      : notFound(r);
  }
  if (action !== undefined) return notFound(r);
  switch (top) {
    case undefined:
      return overviewPage(r);
    case "runs":
      return id === undefined ? runsPage(r) : runPage(r, id);
    case "schedules":
      return id === undefined ? schedulesPage(r) : notFound(r);
    case "changes":
      return id === undefined ? changesPage(r) : historyPage(r, id);
    case "tables":
      if (id === undefined) return tablesPage(r);
      return /\.(csv|parquet)$/.test(id) ? download(r, id) : tablePage(r, id);
  }
  return notFound(r);
}
