import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { signedHeaders } from "../../server/index.js";
import { SECRET, startTestServer } from "./helpers.js";

/**
 * Sends a large body in pieces, as a slow client does, and reads the answer only once it has
 * written everything: what a browser or curl upload does.
 */
function postSlowly(port: number, size: number): Promise<{ answer: string; error: string | undefined }> {
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
      // Signed over a body the server never accepts: the limit is checked before the signature.
      const signed = signedHeaders(SECRET, { method: "POST", pathWithQuery: "/runs", body: "" });
      const headers = Object.entries(signed)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      socket.write(
        `POST /runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${headers}content-length: ${size}\r\n\r\n`,
      );
      for (let sent = 0; sent < size && !socket.destroyed; sent += piece.length) {
        socket.write(piece.subarray(0, Math.min(piece.length, size - sent)));
        await new Promise((r) => setTimeout(r, 2));
      }
      socket.resume();
      if (!socket.destroyed) socket.end();
    });
  });
}

describe("a body over the limit", () => {
  it("is answered 413 that the client can read after writing it all, never a connection reset", async () => {
    const t = await startTestServer("sqlite");
    const { port } = t.server;
    const r = await postSlowly(port, 5 * 1024 * 1024);
    expect(r.error).toBeUndefined();
    expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(r.answer).toContain("BODY_TOO_LARGE");
    expect((await t.call("GET", "/runs")).status).toBe(200);
  });
});
