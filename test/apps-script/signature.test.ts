import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signRequest } from "../../server/index.js";
import { GasProject } from "./harness/project.js";
import { SECRET, useAddon } from "./setup.js";

/** The server's own vectors (computed with openssl): both sides are checked against the same file. */
const VECTORS = (
  JSON.parse(readFileSync(new URL("../server/signature-vectors.json", import.meta.url), "utf8")) as {
    vectors: {
      secret: string;
      timestamp: string;
      method: string;
      pathWithQuery: string;
      body: string;
      hex: string;
    }[];
  }
).vectors;

const addon = useAddon();

describe("request signatures", () => {
  it("signRequest_ gives the server's test vectors, from Apps Script's signed bytes", () => {
    const project = new GasProject(undefined);
    expect(VECTORS.length).toBeGreaterThan(1);
    for (const v of VECTORS) {
      const o = project.execute("rpc", "signRequest_", [
        v.secret,
        v.timestamp,
        v.method,
        v.pathWithQuery,
        v.body,
      ]);
      expect(o.error).toBeUndefined();
      expect(o.value).toBe(v.hex);
    }
    // Bytes at or above 0x80 come as negatives; hex-encoding them unmasked would give "-…" digits.
    const bytes = project.execute("rpc", "bytesToHex_", [[-1, -128, 0, 127, 15]]);
    expect(bytes.value).toBe("ff80007f0f");
  });

  it("the server accepts what the script sends, once: each request carries its own nonce", async () => {
    const env = await addon.start();
    const { project } = env;
    project.fetch.fetchMs = 0;
    // Non-ASCII text in the body: signed as UTF-8 on both sides.
    const started = project.call("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: ["Küche ☕ 台灯"] },
      maxCredits: 5,
    });
    // Two identical polls within the same second both pass.
    const a = project.rpc("pollRun", started.runId);
    const b = project.rpc("pollRun", started.runId);
    expect(a.ok && b.ok).toBe(true);

    for (const sent of project.sent) {
      const url = new URL(sent.url);
      const pathWithQuery = `${url.pathname}${url.search}`;
      const timestamp = sent.headers["X-Skillsync-Timestamp"]!;
      expect(url.searchParams.get("nonce")).toMatch(/^[0-9a-f-]{36}$/);
      expect(sent.headers["X-Skillsync-Signature"]).toBe(
        signRequest(SECRET, { timestamp, method: sent.method, pathWithQuery, body: sent.body }),
      );
    }
    // The same request sent again verbatim is a replay: refused.
    const last = project.sent.at(-1)!;
    const replay = env.backend.fetchSync({ url: last.url, method: last.method, headers: last.headers }, 1e6);
    expect(replay.status).toBe(401);
    expect(replay.body.toString()).toMatch(/replay/);
  });
});
