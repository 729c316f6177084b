import { describe, expect, it } from "vitest";
import { cachePerOwner } from "../../../connectors/warehouse/cache-per-owner.js";

describe("a cache per owner and key", () => {
  it("makes a value once per owner and key, and clears an owner's values at the limit", () => {
    const cache = cachePerOwner<object, string>(2);
    const made: string[] = [];
    const get = (owner: object, key: string) =>
      cache(owner, key, () => {
        made.push(key);
        return `${key}!`;
      });
    const a = {};
    const b = {};
    expect([get(a, "x"), get(a, "x"), get(b, "x")]).toEqual(["x!", "x!", "x!"]);
    expect(made).toEqual(["x", "x"]); // once for a, once for b
    get(a, "y"); // a holds x, y: at the limit
    get(a, "z"); // cleared, then z
    get(a, "x"); // made again
    get(a, "z"); // still there
    expect(made).toEqual(["x", "x", "y", "z", "x"]);
  });
});
