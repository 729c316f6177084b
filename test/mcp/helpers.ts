import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterTest } from "../helpers/after-test.js";
import { nodeEntry } from "../helpers/node-entry.js";

export interface McpSession {
  client: Client;
  /** Calls a tool and parses its JSON answer; `isError` says whether the server refused or failed. */
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
