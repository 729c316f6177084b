import { readChangesRoute } from "./changes-route.js";
import { errorReply, type Reply } from "./http.js";
import * as routes from "./routes.js";
import * as schedules from "./schedule-routes.js";
import * as watches from "./watch-routes.js";

/** The endpoint a request's method and path name, answered; 404 or 405 when there is none. */
export async function route(
  ctx: routes.RouteContext,
  method: string,
  url: URL,
  body: string,
): Promise<Reply> {
  let parts: string[];
  try {
    parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return errorReply(400, "BAD_PATH", "the path is not valid percent-encoding");
  }
  const [top, id, ...rest] = parts;
  if (rest.length) return errorReply(404, "NOT_FOUND", `no endpoint ${url.pathname}`);
  const want = (m: string) =>
    method === m ? undefined : errorReply(405, "METHOD_NOT_ALLOWED", `use ${m} ${url.pathname}`);
  switch (top) {
    case "pipelines":
      if (id === undefined) return want("GET") ?? routes.listPipelines(ctx);
      break;
    case "runs":
      if (id === undefined && method === "POST") return routes.postRun(ctx, body);
      if (id === undefined) return want("GET") ?? routes.listRuns(ctx);
      return want("GET") ?? routes.getRun(ctx, id);
    case "tables":
      if (id === undefined) return want("GET") ?? routes.listTablesRoute(ctx);
      return want("GET") ?? routes.readTable(ctx, id, url.searchParams);
    case "changes":
      if (id !== undefined) return want("GET") ?? readChangesRoute(ctx, id, url.searchParams);
      break;
    case "budget":
      if (id === undefined) return want("GET") ?? routes.budget(ctx);
      break;
    case "plan":
      if (id === undefined) return want("POST") ?? routes.postPlan(ctx, body);
      break;
    case "schedules":
      if (id === undefined && method === "POST") return schedules.postSchedule(ctx, body);
      if (id === undefined) return want("GET") ?? schedules.listSchedules(ctx, url.searchParams);
      return want("DELETE") ?? schedules.deleteSchedule(ctx, id);
    case "watches":
      if (id === undefined && method === "POST") return watches.postWatch(ctx, body);
      if (id === undefined) return want("GET") ?? watches.getWatches(ctx);
      return want("DELETE") ?? watches.deleteWatchRoute(ctx, id);
    case "alerts":
      if (id === undefined) return want("GET") ?? watches.getAlerts(ctx, url.searchParams);
      break;
  }
  return errorReply(404, "NOT_FOUND", `no endpoint ${url.pathname}`);
}
