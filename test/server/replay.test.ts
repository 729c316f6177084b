import { describe, expect, it } from "vitest";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startTestServer } from "./helpers.js";

// A captured request replayed after a restart and to a second server: replay.processes.test.ts.

describe.each(WAREHOUSE_KINDS)("a signed request the warehouse cannot record (%s)", (kind) => {
  it.skipIf(unavailable(kind))("is refused with 503, not accepted unrecorded", async () => {
    const t = await startTestServer(kind);
    await t.warehouse.close();
    const r = await t.call("GET", "/budget");
    expect(r.status, r.text).toBe(503);
    expect(r.json.error).toMatchObject({
      code: "SIGNATURE_NOT_RECORDED",
      message: expect.stringMatching(/nothing was done.*try again shortly/),
    });
    expect(t.logs.at(-1)).toMatch(/^GET \/budget 503 \d+ms error=/);
  });
});
