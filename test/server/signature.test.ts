import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { canonicalRequest, RequestAuthenticator, signRequest } from "../../server/index.js";
import { migrateToLatest } from "../../store/migrate.js";
import { afterTest } from "../helpers/after-test.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

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

  it("refuses stale, future, wrong and replayed signatures, saying which check refused", async () => {
    const v = SIGNATURE_VECTORS[0]!;
    let now = Number(v.timestamp) * 1000;
    const w = await openWarehouse(freshWarehouseUrl("sqlite"));
    afterTest(() => w.close());
    await migrateToLatest(w);
    const auth = new RequestAuthenticator(v.secret, w.db, () => now);
    afterTest(() => auth.settled());
    const headers = { "x-skillsync-timestamp": v.timestamp, "x-skillsync-signature": v.hex };
    const pre = auth.precheck(headers);
    expect(pre).toEqual({ timestamp: v.timestamp, signature: v.hex });
    expect(await auth.verify(v.method, v.pathWithQuery, `${v.body} `, v.timestamp, v.hex)).toEqual({
      reason: "SIGNATURE_INVALID",
      message: "bad signature",
    });
    expect(await auth.verify(v.method, v.pathWithQuery, v.body, v.timestamp, v.hex)).toBeUndefined();
    expect(await auth.verify(v.method, v.pathWithQuery, v.body, v.timestamp, v.hex.toUpperCase())).toEqual({
      reason: "SIGNATURE_REPLAYED",
      message: expect.stringMatching(/replay/),
    });
    now += 301_000;
    expect(auth.precheck(headers)).toMatchObject({
      reason: "TIMESTAMP_OUT_OF_WINDOW",
      message: expect.stringMatching(/301 s away/),
    });
    now -= 602_000;
    expect(auth.precheck(headers)).toMatchObject({ reason: "TIMESTAMP_OUT_OF_WINDOW" });
    expect(auth.precheck({})).toMatchObject({
      reason: "SIGNATURE_MISSING",
      message: expect.stringMatching(/missing/),
    });
    expect(auth.precheck({ ...headers, "x-skillsync-timestamp": "1.5e9" })).toMatchObject({
      reason: "TIMESTAMP_INVALID",
      message: expect.stringMatching(/Unix seconds/),
    });
  });
});

describe("the signature records of a server", () => {
  it("are pruned once they expired ten minutes ago, at most once a minute", async () => {
    const secret = "a-secret-for-the-pruning-test-0123456789";
    const w = await openWarehouse(freshWarehouseUrl("sqlite"));
    afterTest(() => w.close());
    await migrateToLatest(w);
    let now = Date.UTC(2026, 10, 29, 10, 0, 0);
    const auth = new RequestAuthenticator(secret, w.db, () => now);
    afterTest(() => auth.settled());
    const records = async () => {
      await auth.settled();
      return (await w.db.selectFrom("skillsync_request_signatures").select("expires_at").execute()).length;
    };
    /** A request signed at the fake clock's time, accepted. */
    const accept = async (path: string) => {
      const timestamp = String(Math.floor(now / 1000));
      const signature = signRequest(secret, { timestamp, method: "GET", pathWithQuery: path, body: "" });
      expect(await auth.verify("GET", path, "", timestamp, signature)).toBeUndefined();
    };
    await accept("/a");
    expect(await records()).toBe(1);
    // Expired (its timestamp plus 301 s) a few minutes ago, but within the ten minutes' grace: kept.
    now += 15 * 60_000;
    await accept("/b");
    expect(await records()).toBe(2);
    // Past the grace now, but the last prune was 59 s ago: kept until the next one.
    now += 59_000;
    await accept("/c");
    expect(await records()).toBe(3);
    now += 1_000;
    await accept("/d");
    expect(await records()).toBe(3);
  });
});
