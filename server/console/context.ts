import type { TableComments } from "../../engine/publish/console/table-comments.js";
import type { RouteContext } from "../routes.js";
import type { ConsoleAssets } from "./assets.js";
import type { ConsoleReply } from "./respond.js";
import type { ConsoleSessions, Session } from "./sessions.js";

/** What the console's requests are answered from. */
export interface ConsoleContext {
  route: RouteContext;
  sessions: ConsoleSessions;
  /** What the served pipelines say their tables and columns are: compiled once, at start. */
  comments: ReadonlyMap<string, TableComments>;
  assets: ConsoleAssets;
  /** Run-now forms already acted on (form nonce → its answer): a second click queues nothing. */
  ranNow: Map<string, Promise<ConsoleReply>>;
}

/** A signed-in request as a page sees it. */
export interface PageRequest {
  c: ConsoleContext;
  session: Session;
  method: string;
  /** The path's parts after `/console` (empty for `/`). */
  parts: string[];
  url: URL;
  /** A POST's form fields. */
  form: URLSearchParams;
}
