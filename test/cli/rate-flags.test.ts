import { describe, expect, it } from "vitest";
import { rateSettings } from "../../cli/rate-option.js";
import { cli } from "../helpers/cli.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

describe("--rate and --rate-limit-timeout", () => {
  it("read calls per second or minute and a duration", () => {
    expect(rateSettings({ rate: "20/s", rateLimitTimeout: "30s" })).toEqual({
      rate: 20,
      rateLimitTimeoutMs: 30_000,
    });
    expect(rateSettings({ rate: "600/m" })).toEqual({ rate: 10 });
    expect(rateSettings({ rate: "2.5" })).toEqual({ rate: 2.5 });
    expect(rateSettings({})).toEqual({});
  });

  it("refuse a mistake with exit 2 naming the flag, before anything is opened or sent", async () => {
    const db = freshWarehouseUrl("sqlite");
    for (const [flag, value] of [
      ["--rate", "fast"],
      ["--rate", "0/s"],
      ["--rate-limit-timeout", "0"],
      ["--rate-limit-timeout", "ten minutes"],
    ] as const) {
      const r = await cli(["run", "marketplace-search", "--param", "keyword=x", "--db", db, flag, value], {
        SKILL_API_BASE_URL: "http://never-sent.invalid",
        SKILL_API_KEY: "sk-flag-test",
      });
      expect(r.code).toBe(2);
      expect(r.err).toContain(flag);
    }
  });
});
