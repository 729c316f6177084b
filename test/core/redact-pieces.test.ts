import { describe, expect, it } from "vitest";
import { redact, redactPieces, registerSecret } from "../../core/redact.js";

const KEY = "sk-live-pieces-0123456789abcdef";
registerSecret(KEY);

describe("redactPieces", () => {
  it("redacts a secret split between pieces, and gives back every other character", () => {
    const text = `a,b\n1,${KEY}\n2,Bearer tok_0123456789abcdef\n3,plain\n`;
    for (let cut = 1; cut < text.length; cut++) {
      const r = redactPieces();
      const out = r.push(text.slice(0, cut)) + r.push(text.slice(cut)) + r.end();
      expect(out, `cut at ${cut}`).toBe(redact(text));
    }
    expect(redact(text)).not.toContain(KEY);
    expect(redact(text)).toContain("Bearer [redacted]");
  });

  it("holds back only a tail: long text comes out as it arrives", () => {
    const r = redactPieces();
    const out = r.push("x".repeat(10_000));
    expect(out.length).toBeGreaterThan(9_000);
    expect(out + r.end()).toBe("x".repeat(10_000));
  });
});
