import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../core/errors.js";
import { loadSchedules } from "../../scheduler/load.js";
import { tempDir, writeScheduledPipeline } from "./fixtures.js";

function loadError(files: string[]): ValidationError {
  try {
    loadSchedules(files);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error("expected a ValidationError");
}

describe("schedule: blocks", () => {
  it("fills defaults: UTC, no catch-up, pause after 3 failures", () => {
    const [sp] = loadSchedules([writeScheduledPipeline(tempDir(), { cron: "0 6 * * *" })]);
    expect(sp!.schedule).toEqual({
      cron: "0 6 * * *",
      timezone: "UTC",
      params: { keyword: "usb hub", day: "yesterday" },
      catchUp: false,
      maxFailures: 3,
    });
  });

  it("rejects a bad cron expression with the file, the field and the line", () => {
    const file = writeScheduledPipeline(tempDir(), { cron: "61 * * * *" });
    const err = loadError([file]);
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/schedule\.cron: is not a cron expression \(minute: .*61.*\) \(line 20\)/);
  });

  it("rejects an unknown time zone", () => {
    const err = loadError([writeScheduledPipeline(tempDir(), { schedule: "  timezone: Mars/Olympus" })]);
    expect(err.message).toMatch(/schedule\.timezone: is not an IANA time zone .*\(line 22\)/);
  });

  it("checks schedule params against the pipeline's params, with their line", () => {
    const file = writeScheduledPipeline(tempDir(), {
      params: "\n    keyword: lamp\n    colour: red\n    day: someday",
    });
    const err = loadError([file]);
    expect(err.message).toContain(file);
    expect(err.message).toMatch(
      /schedule\.params\.colour: unknown param; this pipeline takes keyword, day \(line 23\)/,
    );
    expect(err.message).toMatch(/schedule\.params\.day: "someday" is not a date .*\(line 24\)/);
    const missing = loadError([writeScheduledPipeline(tempDir(), { params: "{ day: today }" })]);
    expect(missing.message).toMatch(/schedule\.params\.keyword: is required/);
  });

  it("takes the scheduled files of a folder, but insists on a schedule in a file named explicitly", () => {
    const dir = tempDir();
    writeScheduledPipeline(dir, { name: "nightly" });
    writeFileSync(
      join(dir, "manual.yaml"),
      "name: manual\nskill: marketplace-search\nrecords: { path: products, table: manual_rows, mode: append }\n",
    );
    expect(loadSchedules([dir]).map((s) => s.pipeline.name)).toEqual(["nightly"]);
    expect(loadError([join(dir, "manual.yaml")]).message).toMatch(/schedule: has no schedule: block/);
    const other = tempDir();
    writeScheduledPipeline(other, { name: "nightly" });
    expect(loadError([dir, other]).message).toMatch(/nightly: two files name this pipeline/);
  });
});
