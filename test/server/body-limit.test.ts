import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { signedHeaders } from "../../server/index.js";
import { rawConnection, SECRET, startTestServer } from "./helpers.js";

/** Signed over a body the server never accepts: the limit is checked before the signature. */
function signedLines(): string {
  return Object.entries(signedHeaders(SECRET, { method: "POST", pathWithQuery: "/runs", body: "" }))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
}

/**
 * Sends a large body in pieces, as a slow client does, and reads the answer only once it has
 * written everything: what a browser or curl upload does. Without `size` in a Content-Length
 * header, the body goes chunked.
 */
function postSlowly(
  port: number,
  size: number,
  o: { declared: boolean },
): Promise<{ answer: string; error: string | undefined }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let error: string | undefined;
    socket.on("data", (d) => {
      answer += d.toString("latin1");
    });
    socket.on("error", (e) => {
      error = (e as NodeJS.ErrnoException).code ?? e.message;
    });
    socket.on("close", () => resolve({ answer, error }));
    socket.on("connect", async () => {
      // Not reading while writing: an answer sent early waits in the socket, where a reset loses it.
      socket.pause();
      const piece = Buffer.alloc(64 * 1024, "x");
      const length = o.declared ? `content-length: ${size}` : "transfer-encoding: chunked";
      socket.write(
        `POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${signedLines()}${length}\r\n\r\n`,
      );
      for (let sent = 0; sent < size && !socket.destroyed; sent += piece.length) {
        const part = piece.subarray(0, Math.min(piece.length, size - sent));
        socket.write(
          o.declared
            ? part
            : Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]),
        );
        await new Promise((r) => setTimeout(r, 2));
      }
      if (!o.declared && !socket.destroyed) socket.write("0\r\n\r\n");
      socket.resume();
      if (!socket.destroyed) socket.end();
    });
  });
}

describe("a body over the limit", () => {
  for (const declared of [true, false]) {
    it(`is answered 413 that the client can read after writing it all, never a connection reset (${declared ? "Content-Length" : "chunked"})`, async () => {
      const t = await startTestServer("sqlite");
      const r = await postSlowly(t.server.port, 5 * 1024 * 1024, { declared });
      expect(r.error).toBeUndefined();
      expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
      expect(r.answer).toContain("BODY_TOO_LARGE");
      expect((await t.call("GET", "/runs")).status).toBe(200);
    });
  }

  it("is refused with 413 at once when only declared, without waiting for a byte of it, and the connection closes", async () => {
    const t = await startTestServer("sqlite");
    const c = await rawConnection(t.server.port);
    c.socket.write(
      `POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${signedLines()}content-length: 1000000000000\r\n\r\n`,
    );
    // The whole answer, body included (its Content-Length is the JSON's).
    const ms = await c.answered(/^HTTP\/1\.1 413.*\r\n\r\n\{.*BODY_TOO_LARGE.*\}$/s);
    expect(c.received()).toMatch(/\r\nconnection: close\r\n/i);
    // Measured on the 2-core VM: ~5 ms; 2 s leaves room for a loaded machine and is far from the old 30 s.
    expect(ms).toBeLessThan(2_000);
    // The client sent nothing more, so the connection closes once it has been quiet for a second.
    expect(await c.closed()).toBeLessThan(ms + 5_000);
    expect(c.error()).toBeUndefined();
    expect(t.logs.some((l) => /^POST \/runs 413 /.test(l))).toBe(true);
    expect((await t.call("GET", "/runs")).status).toBe(200);
  });

  it("is refused before '100 Continue' when the client asks first, so it never sends the body", async () => {
    const t = await startTestServer("sqlite");
    const c = await rawConnection(t.server.port);
    c.socket.write(
      `POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\n${signedLines()}expect: 100-continue\r\ncontent-length: 100000000\r\n\r\n`,
    );
    await c.answered(/BODY_TOO_LARGE/);
    expect(c.received()).toMatch(/^HTTP\/1\.1 413/);
    expect(c.received()).not.toContain("100 Continue");
    await c.closed();
  });

  it("refuses an unsigned request before '100 Continue', and closes the connection its body never came on", async () => {
    const t = await startTestServer("sqlite");
    const c = await rawConnection(t.server.port);
    c.socket.write(
      "POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\nexpect: 100-continue\r\ncontent-length: 20\r\n\r\n",
    );
    await c.answered(/UNAUTHORIZED/);
    expect(c.received()).toMatch(/^HTTP\/1\.1 401 .*\r\nconnection: close\r\n/is);
    await c.closed();
  });

  it("takes a body that fits from a client that asks for '100 Continue' first", async () => {
    const t = await startTestServer("sqlite");
    const body = JSON.stringify({
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub"] },
      maxCredits: 5,
    });
    const signed = Object.entries(signedHeaders(SECRET, { method: "POST", pathWithQuery: "/runs", body }))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    const c = await rawConnection(t.server.port);
    c.socket.write(
      `POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${signed}expect: 100-continue\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    await c.answered(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    c.socket.write(body);
    await c.answered(/HTTP\/1\.1 202.*"runId"/s);
  });
});
