import { Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Log } from "../core/log.js";
import type { McpOptions } from "./context.js";
import { LineLimit } from "./line-limit.js";
import { createMcpServer } from "./server.js";

/**
 * Takes stdout for the MCP channel alone: the returned stream writes to it, and anything else that
 * writes to process.stdout (a stray log line would corrupt the JSON-RPC stream) goes to stderr.
 */
function claimStdout(): Writable {
  const out = process.stdout;
  const write = out.write.bind(out);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const channel = new Writable({
    write(chunk, encoding, done) {
      write(chunk, encoding, (err) => done(err ?? null));
    },
  });
  return channel;
}

/** Resolves when the client goes away (stdin ends or the transport closes) or on SIGINT/SIGTERM. */
function untilDone(transport: StdioServerTransport): Promise<string> {
  return new Promise((resolve) => {
    const finish = (why: string) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(why);
    };
    const onSignal = (s: NodeJS.Signals) => finish(s);
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    process.stdin.once("end", () => finish("stdin closed"));
    transport.onclose = () => finish("transport closed");
  });
}

/**
 * The SDK's McpError puts "MCP error -32602: " into its message and sends that message as the
 * JSON-RPC error's; the client's McpError prefixes it again ("MCP error -32602: MCP error -32602:
 * no table …"). The prefix is taken off what is sent: the code travels beside the message.
 */
function sendBareErrorMessages(transport: StdioServerTransport): void {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => {
    if (!("error" in message)) return send(message);
    const { code, message: text } = message.error;
    const prefix = `MCP error ${code}: `;
    if (!text.startsWith(prefix)) return send(message);
    return send({ ...message, error: { ...message.error, message: text.slice(prefix.length) } });
  };
}

/**
 * Serves MCP over stdin/stdout until the client leaves. A run still going then is interrupted
 * (resumable) and waited for, so the caller can close the warehouse safely afterwards.
 */
export async function serveStdio(o: McpOptions, log: Log): Promise<void> {
  const channel = claimStdout();
  const abort = new AbortController();
  const { server, settled } = createMcpServer({ ...o, signal: abort.signal });
  // An over-long request line is answered with an error and dropped; the session goes on.
  const lines = new LineLimit((answer) => channel.write(answer));
  process.stdin.pipe(lines);
  const transport = new StdioServerTransport(lines, channel);
  sendBareErrorMessages(transport);
  const done = untilDone(transport);
  await server.connect(transport);
  log(`skillsync mcp: serving on stdio; at most ${o.maxCredits} credits in all for the runs it starts`, {
    event: "mcp.started",
    maxCredits: o.maxCredits,
  });
  const why = await done;
  log(`skillsync mcp: stopping (${why})`, { event: "mcp.stopping", reason: why });
  // Stopped by a signal, the process must not wait on a client that keeps stdin open.
  process.stdin.unpipe(lines);
  process.stdin.destroy();
  abort.abort();
  await settled();
  await server.close();
}
