import { describe, expect, it } from "vitest";
import { signedHeaders } from "../../server/index.js";
import { rawConnection, SECRET, startTestServer } from "./helpers.js";

const BODY = JSON.stringify({
  pipeline: "marketplace-search",
  params: { keyword: ["usb hub"] },
  maxCredits: 5,
});

/** The head of a signed POST /runs of BODY, as a raw client writes it. */
function signedPostHead(): string {
  const signed = Object.entries(signedHeaders(SECRET, { method: "POST", pathWithQuery: "/runs", body: BODY }))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return `POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${signed}content-length: ${Buffer.byteLength(BODY)}\r\n\r\n`;
}

/** Writes `text` a piece at a time, `everyMs` apart, until it is all sent or the connection is gone. */
async function trickle(socket: import("node:net").Socket, text: string, size: number, everyMs: number) {
  for (let i = 0; i < text.length && !socket.destroyed; i += size) {
    socket.write(text.slice(i, i + size));
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe("serve's time limits", () => {
  it("answers 408 and closes the connection when the body arrives slower than the body timeout", async () => {
    const t = await startTestServer("sqlite", { bodyTimeoutMs: 400 });
    const c = await rawConnection(t.server.port);
    c.socket.write(signedPostHead());
    // The whole body would take ~10 s at this pace.
    void trickle(c.socket, BODY, 1, 100);
    const ms = await c.answered(/^HTTP\/1\.1 408 .*\r\n\r\n\{.*BODY_TIMEOUT.*\}$/s);
    expect(c.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(ms).toBeGreaterThanOrEqual(400);
    expect(ms).toBeLessThan(5_000);
    expect(await c.closed()).toBeLessThan(ms + 5_000);
    expect(t.logs.some((l) => /^POST \/runs 408 /.test(l))).toBe(true);
    expect(t.emulator.ledger().totalCalls).toBe(0);
  });

  it("takes a body that arrives in pieces within the body timeout", async () => {
    const t = await startTestServer("sqlite", { bodyTimeoutMs: 5_000 });
    const c = await rawConnection(t.server.port);
    c.socket.write(signedPostHead());
    await trickle(c.socket, BODY, Math.ceil(BODY.length / 4), 50);
    await c.answered(/^HTTP\/1\.1 202 .*"runId"/s);
  });

  it("disconnects a client that sends its headers slower than the header timeout", async () => {
    const t = await startTestServer("sqlite", { headersTimeoutMs: 500 });
    const c = await rawConnection(t.server.port);
    // Byte by byte, 50 ms apart: the head would take ~20 s.
    void trickle(
      c.socket,
      `GET /runs HTTP/1.1\r\nhost: 127.0.0.1\r\nx-pad: ${"a".repeat(400)}\r\n\r\n`,
      1,
      50,
    );
    const ms = await c.closed();
    expect(ms).toBeGreaterThanOrEqual(500);
    expect(ms).toBeLessThan(5_000);
    // node's own answer, written before it closes.
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it("closes a connection that never sends a request, and a kept-alive one left idle", async () => {
    const t = await startTestServer("sqlite", { headersTimeoutMs: 500, idleTimeoutMs: 300 });
    const silent = await rawConnection(t.server.port);
    expect(await silent.closed()).toBeLessThan(5_000);

    const kept = await rawConnection(t.server.port);
    const signed = Object.entries(signedHeaders(SECRET, { method: "GET", pathWithQuery: "/runs", body: "" }))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    kept.socket.write(`GET /runs HTTP/1.1\r\nhost: 127.0.0.1\r\n${signed}\r\n`);
    const answered = await kept.answered(/^HTTP\/1\.1 200 .*\r\n\r\n\{.*\}$/s);
    expect(kept.received()).toMatch(/\r\nconnection: keep-alive\r\n/i);
    // node waits a second past the advertised keep-alive time before it closes.
    const closed = await kept.closed();
    expect(closed - answered).toBeGreaterThanOrEqual(300);
    expect(closed - answered).toBeLessThan(5_000);
  });

  it("still answers normal signed requests, bodies included, with short limits", async () => {
    const t = await startTestServer("sqlite", {
      bodyTimeoutMs: 1_000,
      headersTimeoutMs: 1_000,
      idleTimeoutMs: 500,
    });
    expect((await t.call("GET", "/runs")).status).toBe(200);
    const post = await t.call("POST", "/runs", JSON.parse(BODY));
    expect(post.status).toBe(202);
    expect((await t.call("GET", `/runs/${post.json.runId}`)).status).toBe(200);
  });
});
