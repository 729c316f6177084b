import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

// Issue 47: `export … --out /proc/x.csv` gave the temporary file's bare ENOENT, exit 1.
describe.skipIf(process.platform !== "linux")("export --out where no file can be written", () => {
  it("is exit 2 naming --out and why, for each format; a file in the way of the folder is named", async () => {
    const db = freshWarehouseUrl("sqlite");
    expect((await cli(["migrate", "--db", db])).code).toBe(0);
    for (const format of ["csv", "jsonl", "parquet"]) {
      const out = `/proc/skillsync-x.${format}`;
      const r = await cli(["export", "--sql", "select 1 as a", "--format", format, "--out", out, "--db", db]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(`--out ${out}: cannot be written: no file can be made there (ENOENT)`);
      expect(r.err).not.toContain(".tmp");
    }
    const r = await cli([
      "export",
      "--sql",
      "select 1 as a",
      "--format",
      "csv",
      "--out",
      "/etc/hostname/x.csv",
      "--db",
      db,
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--out /etc/hostname/x.csv: /etc/hostname is a file, not a folder");
  });
});
