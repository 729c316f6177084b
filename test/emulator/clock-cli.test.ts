import { describe, expect, it } from "vitest";
import { emulatorOptionsFromFlags } from "../../cli/commands/emulator.js";
import { ValidationError } from "../../core/errors.js";
import { runCli } from "./cli-process.js";

describe("skillsync emulator --date", { timeout: 90_000 }, () => {
  it("starts the clock at the given date and prints it", async () => {
    const cli = runCli(["emulator", "--port", "0", "--date", "2026-11-08"]);
    const out = await cli.waitFor(/Press Ctrl\+C/);
    expect(out).toContain("date:     2026-11-08");
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(await (await fetch(`${url}/__emulator/clock`)).json()).toEqual({ date: "2026-11-08" });
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  it("exits 2 on a date that is not a calendar date", async () => {
    const cli = runCli(["emulator", "--port", "0", "--date", "2026-02-30"]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().err).toMatch(/--date: "2026-02-30" must be a calendar date yyyy-mm-dd/);
  });

  it("maps --date to the date option, and leaves it out when not given (the command then uses today)", () => {
    expect(emulatorOptionsFromFlags({ port: "0", date: "2027-01-31" })).toMatchObject({ date: "2027-01-31" });
    expect(emulatorOptionsFromFlags({ port: "0" })).not.toHaveProperty("date");
    expect(() => emulatorOptionsFromFlags({ date: "31.01.2027" })).toThrow(ValidationError);
  });
});
