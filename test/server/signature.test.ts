import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalRequest, RequestAuthenticator, signRequest } from "../../server/index.js";

/** Fixed vectors computed independently with openssl; the Apps Script add-on's tests reuse the file. */
const SIGNATURE_VECTORS = (
  JSON.parse(readFileSync(new URL("./signature-vectors.json", import.meta.url), "utf8")) as {
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

describe("request signatures", () => {
  it("match the fixed test vectors", () => {
    for (const v of SIGNATURE_VECTORS) expect(signRequest(v.secret, v)).toBe(v.hex);
  });

  it("sign timestamp, upper-cased method, path with query and body, joined by newlines", () => {
    expect(canonicalRequest({ timestamp: 1, method: "post", pathWithQuery: "/runs?a=1", body: "{}" })).toBe(
      "1\nPOST\n/runs?a=1\n{}",
    );
  });

  it("refuses stale, future, wrong and replayed signatures", () => {
    const v = SIGNATURE_VECTORS[0]!;
    let now = Number(v.timestamp) * 1000;
    const auth = new RequestAuthenticator(v.secret, () => now);
    const headers = { "x-skillsync-timestamp": v.timestamp, "x-skillsync-signature": v.hex };
    const pre = auth.precheck(headers);
    expect(pre).toEqual({ timestamp: v.timestamp, signature: v.hex });
    expect(auth.verify(v.method, v.pathWithQuery, `${v.body} `, v.timestamp, v.hex)).toEqual({
      reason: "bad signature",
    });
    expect(auth.verify(v.method, v.pathWithQuery, v.body, v.timestamp, v.hex)).toBeUndefined();
    expect(auth.verify(v.method, v.pathWithQuery, v.body, v.timestamp, v.hex)?.reason).toMatch(/replay/);
    now += 301_000;
    expect(auth.precheck(headers)).toMatchObject({ reason: expect.stringMatching(/301 s away/) });
    now -= 602_000;
    expect(auth.precheck(headers)).toMatchObject({ reason: expect.stringMatching(/away/) });
    expect(auth.precheck({})).toMatchObject({ reason: expect.stringMatching(/missing/) });
    expect(auth.precheck({ ...headers, "x-skillsync-timestamp": "1.5e9" })).toMatchObject({
      reason: expect.stringMatching(/Unix seconds/),
    });
  });
});
