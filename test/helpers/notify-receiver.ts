import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import { type NotifyTarget, notifyTarget } from "../../engine/notify/config.js";
import { afterTest } from "./after-test.js";

export interface Received {
  id: string;
  kind: string;
  body: { text: string; event: Record<string, unknown> };
  raw: string;
}

/** How the receiver answers: 200, 200 after `state.delayMs`, an error status, or never (hangs). */
export type Mode = "ok" | "slow" | "500" | "hang";

/**
 * A webhook receiver on loopback (node:http on 127.0.0.1): records every POST it answers 200
 * (in order), can answer 500 or hang, and can go down (closed: connections refused) and come back
 * on the same port. `url` carries a path token, as Slack's webhook URLs do.
 */
export async function startReceiver(mode: Mode = "ok") {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const state = { mode, posts: 0, delayMs: 800 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      state.posts++;
      if (state.mode === "hang") return;
      if (state.mode === "500") return void res.writeHead(500).end("down for maintenance");
      const body = JSON.parse(raw) as Received["body"];
      received.push({
        id: String(req.headers["x-skillsync-event-id"]),
        kind: String(body.event["kind"]),
        body,
        raw,
      });
      const answer = () => res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      if (state.mode === "slow") setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
    );
  const port = await listen(0);
  const url = `http://127.0.0.1:${port}/services/T000/B000/secret-hook-token-0123456789`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  afterTest(close);
  return {
    url,
    received,
    state,
    target: (on?: NotifyTarget["on"]): NotifyTarget => notifyTarget(url, "test", on),
    /** Event ids received, and how often each. */
    counts: () => received.reduce((m, r) => m.set(r.id, (m.get(r.id) ?? 0) + 1), new Map<string, number>()),
    down: close,
    up: async () => {
      await listen(port);
    },
  };
}
