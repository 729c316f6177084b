import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { SkillClient } from "../../../connectors/skill-api/client.js";
import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { ReadTimeoutError } from "../../../connectors/warehouse/read-only.js";
import { ValidationError } from "../../../core/errors.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { createMcpServer } from "../../../mcp/index.js";
import { type SkillsyncServer, signedHeaders, startServer } from "../../../server/index.js";
import { cli } from "./cli.js";
import { API_KEY, SERVER_SECRET } from "./secrets.js";

/**
 * The read paths of the read-only trial (read-only.test.ts) as a user, an agent or a spreadsheet
 * takes them, each ending in one outcome: refused (by the first check, or by the database: a
 * privilege the reader lacks, the READ ONLY transaction, or anything else it refuses — a syntax
 * error, an unknown name), stopped at the time limit, finished, or unexpected (anything else: a
 * crash, a setup failure, a refusal with the wrong exit code).
 */
type Refusal = "check" | "privilege" | "read-only" | "other";
export interface Outcome {
  result: "refused" | "timed out" | "finished" | "unexpected";
  by?: Refusal;
  /** Everything the path printed or answered (scanned for the marker and the reader's password). */
  text: string;
}

const CHECK =
  /contains a NUL byte|unterminated string|must be exactly one statement|is empty|must be a read \(|EXPLAIN ANALYZE runs|PRAGMA .*is refused|\) is refused in a read-only statement|INTO is refused|Invalid arguments|too_small|at least 1 character/;
const PRIVILEGE =
  /permission denied|must be (a )?superuser|must be a member of|privileges of the pg_\w+ role|Non-superuser|password is required|only superusers?/i;
const READ_ONLY =
  /read-only transaction|not allowed in a non-volatile function|read-write mode must be set before/i;
/** Setup failures and crashes: never a refusal, whatever the exit code. */
const BROKEN =
  /read paths (log in|could not)|no reader login|Connection terminated|ECONNRESET|ECONNREFUSED|INTERNAL|Not connected/;

function refusal(message: string): Refusal {
  if (CHECK.test(message)) return "check";
  if (PRIVILEGE.test(message)) return "privilege";
  if (READ_ONLY.test(message)) return "read-only";
  return "other";
}

const refused = (message: string, text: string): Outcome =>
  BROKEN.test(message) ? { result: "unexpected", text } : { result: "refused", by: refusal(message), text };

/** An error one of our functions threw, in-process. */
export function fromError(err: unknown, text = ""): Outcome {
  const all = `${text}${err instanceof Error ? err.message : String(err)}\n`;
  if (err instanceof ReadTimeoutError) return { result: "timed out", text: all };
  if (err instanceof ValidationError) return refused(err.message, all);
  return { result: "unexpected", text: `${all}${err instanceof Error ? (err.stack ?? "") : ""}` };
}

export type CliCommand = "sql" | "plan" | "run";

/**
 * A `skillsync sql|plan|run` through the real CLI, in this process. A pipeline's input query that
 * answered counts as finished, whatever the rest of the command made of its values (a run stops at
 * `--max-credits 0` before anything is sent: exit 3; a value no request takes: exit 2).
 */
export async function throughCli(
  command: CliCommand,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<Outcome> {
  const r = await cli([command, ...args], env);
  const text = `${r.out}${r.err}`;
  if (BROKEN.test(r.err)) return { result: "unexpected", text: `exit ${r.code}: ${text}` };
  if (r.code === 0) return { result: "finished", text };
  if (r.code === 1 && /stopped after \d+ ms/.test(r.err)) return { result: "timed out", text };
  if (r.code === 2 && (command === "sql" || /input\.from\.sql/.test(r.err))) return refused(r.err, text);
  if (command !== "sql" && (r.code === 2 || r.code === 3)) return { result: "finished", text };
  return { result: "unexpected", text: `exit ${r.code}: ${text}` };
}

/** A pipeline file whose input is the statement (each statement its own file, so no run resumes another's). */
export function inputPipeline(dir: string, statement: string): string {
  const file = join(dir, `input-${randomBytes(6).toString("hex")}.yaml`);
  writeFileSync(
    file,
    [
      "name: hostile-input",
      "skill: marketplace-search",
      "input:",
      "  name: keyword",
      `  from: { sql: ${JSON.stringify(statement)} }`,
      'request: { keyword: "{{keyword}}" }',
      "records: { path: products, table: hostile_input_rows, mode: append }",
      "",
    ].join("\n"),
  );
  return file;
}

/** A client of the skill API that is never reached (runs stop at --max-credits 0, nothing is sent). */
const unreachableApi = (): SkillClient => new SkillClient({ baseUrl: "http://127.0.0.1:9", apiKey: API_KEY });

/** `skillsync mcp`'s server over the warehouse, in this process, with the SDK's own client. */
export interface McpInProcess {
  query(sql: string): Promise<Outcome>;
  describeTable(table: string): Promise<Outcome>;
  readResource(table: string): Promise<Outcome>;
  close(): Promise<void>;
}

export async function mcpInProcess(w: Warehouse): Promise<McpInProcess> {
  const api = unreachableApi();
  const mcp = createMcpServer({
    warehouse: w,
    client: api,
    maxCredits: 0,
    pipelines: [],
    prices: loadPrices(),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name: "skillsync-read-only-trial", version: "1.0.0" });
  await client.connect(clientSide);
  async function tool(name: string, args: Record<string, unknown>): Promise<Outcome> {
    try {
      const r = await client.callTool({ name, arguments: args });
      const text = (r.content as { text?: string }[]).map((c) => c.text ?? "").join("");
      if (r.isError !== true) return { result: "finished", text };
      // The SDK answers arguments its schema does not take (an empty statement) before the tool runs.
      if (/Input validation error/.test(text)) return { result: "refused", by: "check", text };
      const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
      if (code === "READ_TIMEOUT") return { result: "timed out", text };
      if (code === "VALIDATION") return refused(text, text);
      return { result: "unexpected", text };
    } catch (err) {
      return { result: "unexpected", text: String(err) };
    }
  }
  return {
    query: (sql) => tool("query", { sql, maxRows: 100 }),
    describeTable: (table) => tool("describe_table", { table }),
    async readResource(table) {
      try {
        const r = await client.readResource({ uri: `skillsync://tables/${encodeURIComponent(table)}` });
        return { result: "finished", text: JSON.stringify(r.contents) };
      } catch (err) {
        const text = String(err);
        return /stopped after \d+ ms/.test(text) ? { result: "timed out", text } : refused(text, text);
      }
    },
    async close() {
      await client.close();
      await mcp.settled();
      await mcp.server.close();
      await api.close();
    },
  };
}

/** `skillsync serve` over the warehouse, in this process; `page` is a signed GET /tables/:name. */
export interface ServerInProcess {
  server: SkillsyncServer;
  logs: string[];
  page(table: string): Promise<Outcome>;
  close(): Promise<void>;
}

export async function serverInProcess(w: Warehouse): Promise<ServerInProcess> {
  const api = unreachableApi();
  const logs: string[] = [];
  const server = await startServer({
    secret: SERVER_SECRET,
    warehouse: w,
    client: api,
    maxCredits: 1,
    port: 0,
    host: "127.0.0.1",
    log: (l) => logs.push(l),
  });
  return {
    server,
    logs,
    async page(table) {
      const path = `/tables/${encodeURIComponent(table)}?limit=10&nonce=${randomBytes(8).toString("hex")}`;
      const seen = logs.length;
      const res = await fetch(`${server.url}${path}`, {
        headers: signedHeaders(SERVER_SECRET, { method: "GET", pathWithQuery: path, body: "" }),
      });
      const body = await res.text();
      const log = logs.slice(seen).join("\n");
      const text = `${res.status} ${body}\n${log}\n`;
      if (res.status === 200) return { result: "finished", text };
      if (res.status === 400) return refused(body, text);
      if (res.status === 500 && /stopped after \d+ ms/.test(log)) return { result: "timed out", text };
      return { result: "unexpected", text };
    },
    async close() {
      await server.close();
      await api.close();
    },
  };
}
