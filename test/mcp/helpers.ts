import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterTest } from "../helpers/after-test.js";
import { nodeEntry } from "../helpers/node-entry.js";

export interface McpSession {
  client: Client;
  /** Calls a tool and parses its JSON answer; `isError` says whether the server refused or failed. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  call(name: string, args?: Record<string, unknown>): Promise<{ json: any; isError: boolean; text: string }>;
  /** Everything the server process wrote to stderr so far. */
  stderr(): string;
  /** Every tool answer's text so far (for the secret scan). */
  transcript(): string;
  /** The server process's id (to read its memory from /proc). */
  pid: number;
  close(): Promise<void>;
}

/**
 * The real `skillsync mcp` process, spawned by the SDK's own stdio client transport and
 * initialised; closed after the test.
 */
export async function startMcp(args: string[], env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeEntry("cli/run.ts"), "mcp", ...args],
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    cwd: process.cwd(),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const client = new Client({ name: "skillsync-test", version: "1.0.0" });
  await client.connect(transport);
  afterTest(() => client.close());
  let transcript = "";
  return {
    client,
    async call(name, toolArgs = {}) {
      const r = await client.callTool({ name, arguments: toolArgs });
      const content = r.content as { type: string; text?: string }[];
      const text = content.map((c) => c.text ?? "").join("");
      transcript += `${text}\n`;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { json, isError: r.isError === true, text };
    },
    stderr: () => err,
    transcript: () => transcript,
    pid: transport.pid!,
    close: () => client.close(),
  };
}

/** One answer the server wrote to stdout, parsed. */
interface RawAnswer {
  id?: unknown;
  result?: { serverInfo: { name: string }; content: { text: string }[] };
  error?: { code: number; message: string };
}

/**
 * The real `skillsync mcp` process (reading only, `--max-credits 0`) on raw stdio, for lines the
 * SDK's client would never send: lines in, parsed answers out; killed after the test.
 */
export function startRawMcp(db: string, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [...nodeEntry("cli/run.ts"), "mcp", "--db", db, "--max-credits", "0"],
    {
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  afterTest(async () => {
    child.kill();
    await exited;
  });
  const answers: RawAnswer[] = [];
  const waiting: (() => void)[] = [];
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      answers.push(JSON.parse(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
    }
    for (const wake of waiting.splice(0)) wake();
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const send = (line: string) =>
    new Promise<void>((resolve, reject) =>
      child.stdin!.write(`${line}\n`, (err) => (err ? reject(err) : resolve())),
    );
  /** The first answer whose id is `id` not taken yet, waited for as answers arrive (deadline: 60 s). */
  const answer = (id: unknown) =>
    new Promise<RawAnswer>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`no answer ${id}; stderr: ${stderr}`)), 60_000);
      const look = () => {
        const at = answers.findIndex((a) => a.id === id);
        if (at >= 0) {
          clearTimeout(deadline);
          resolve(answers.splice(at, 1)[0]!);
        } else waiting.push(look);
      };
      look();
    });
  /** The MCP handshake, as a client starts a session. */
  const initialize = async () => {
    await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    const init = await answer("init");
    await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    return init;
  };
  return { child, send, answer, initialize };
}
