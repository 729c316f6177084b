import { describe, expect, it } from "vitest";
import { identifierFault, isUsualIdentifier } from "../../../schema/patent-identifier.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";

// Issue 47: `run patent-legal-status --param patent="US 123"` spent a credit and said
// `succeeded · rows 0`, no warning. A value that cannot be a patent identifier is refused before
// any call; one whose form is only unusual is asked for, with a warning listing it.

describe("the identifier rule", () => {
  it("tells values that cannot be identifiers from odd ones", () => {
    expect(identifierFault("US 123")).toBe('holds a space (written without: "US123")');
    expect(identifierFault(" ")).toBe("is empty");
    expect(identifierFault("US#123")).toBe("holds punctuation no identifier has");
    expect(identifierFault("USB")).toMatch(/has no digit/);
    for (const ok of ["US11234567B2", "patent/US11234567B2/en", "us11234567b2", "US123", "JP2020-123456"])
      expect(identifierFault(ok), ok).toBeUndefined();
    expect(
      ["US11234567B2", "patent/EP3000000A1/en", "WO2020123456A1", "CN116871492A"].map(isUsualIdentifier),
    ).toEqual([true, true, true, true]);
    expect(["US123", "JP2020-123456", "123456789"].map(isUsualIdentifier)).toEqual([false, false, false]);
  });
});

describe("identifiers of a patent-identifier pipeline", () => {
  it("that cannot be identifiers: exit 2 naming the param, the values and the rule; nothing sent", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const db = freshWarehouseUrl("sqlite");
    const bad = ["patent=US 123", "patent=US11234567B2", "patent=US#9", "patent=lamp"];
    const args = bad.flatMap((p) => ["--param", p]);
    for (const command of ["run", "plan"]) {
      const r = await cli([command, "patent-legal-status", ...args, "--db", db], env);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain("invalid input of pipeline patent-legal-status:");
      expect(r.err).toContain(
        'patent: 3 value(s) cannot be patent identifiers: "US 123" holds a space (written without: "US123"); "US#9" holds punctuation no identifier has; "lamp" has no digit',
      );
      expect(r.err).toContain(
        "a patent identifier is a publication number (office, number, kind: US11234567B2)",
      );
    }
    // One value at a time (no batch), and a batch member given several in one value.
    const claims = await cli(
      ["run", "patent-claims", "--param", "patent=US11234567B2, EP 3000000 A1", "--db", db],
      env,
    );
    expect(claims.code, claims.err).toBe(2);
    expect(claims.err).toContain('"EP 3000000 A1" holds a space (written without: "EP3000000A1")');
    expect(emulator.ledger().totalCalls).toBe(0);
  });

  it("of an unusual form: asked for all the same, with a warning listing them", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const db = freshWarehouseUrl("sqlite");
    const r = await cli(
      ["run", "patent-legal-status", "--param", "patent=US123", "--param", "patent=US11234567B2", "--db", db],
      env,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      'warning: patent-legal-status: 1 identifier(s) of an unusual form, asked for all the same: "US123"',
    );
    expect(emulator.ledger().totalCalls).toBe(1);
    // Usual identifiers: no such warning.
    const quiet = await cli(["run", "patent-legal-status", "--param", "patent=EP3000000A1", "--db", db], env);
    expect(quiet.code, quiet.err).toBe(0);
    expect(quiet.out).not.toContain("unusual form");
  });
});
