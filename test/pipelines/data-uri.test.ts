import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import { runPipelines } from "../../engine/run/runner.js";
import { builtin, count } from "../engine/fixtures.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";

/** A `data:image/png;base64,` URI of exactly `length` characters. */
const dataUri = (length: number) => {
  const head = "data:image/png;base64,";
  return head + "iVBORw0KGgo".repeat(Math.ceil(length / 11)).slice(0, length - head.length);
};

const dir = mkdtempSync(join(tmpdir(), "skillsync-datauri-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("data:image URIs in TRO checks", () => {
  it("refuses a URI over 1000 characters before anything is sent, naming the param, the member and the limit", async () => {
    const { emulator, client } = await emulatorWithClient();
    const w = await openWarehouse(join(dir, "refuse.db"));
    try {
      const long = dataUri(1400);
      const err = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("ip-tro-check"),
        params: { image: ["https://images.marketplace.example/I/OK.jpg", long] },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      const message = (err as ValidationError).message;
      expect(message).toContain("input of pipeline ip-tro-check");
      expect(message).toMatch(/image: "data:image\/png;base64,[^"]{1,40}…" \(1400 characters\)/);
      expect(message).toContain("mainProductImage: must be at most 1000 characters");
      // The value is shortened, never printed whole.
      expect(message).not.toContain(long.slice(0, 200));
      // Nothing was sent, not even the valid image's check: all calls are formed before any is sent.
      expect(emulator.ledger().calls).toHaveLength(0);
      // Refused before the warehouse is touched: not even a table or a run row was written.
      expect(await count(w, "sqlite_master")).toBe(0);
    } finally {
      await w.close();
    }
  });

  it("sends a data:image URI of exactly 1000 characters", async () => {
    const { emulator, client } = await emulatorWithClient();
    const w = await openWarehouse(join(dir, "accept.db"));
    try {
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("ip-tro-check"),
        params: { image: [dataUri(1000)] },
      });
      expect(s.status).toBe("succeeded");
      expect(emulator.ledger().calls.map((c) => c.status)).toEqual(["ok"]);
      expect(await count(w, "ip_tro_checks", `length(image_url) = 1000`)).toBe(1);
    } finally {
      await w.close();
    }
  });

  it("skillsync run prints the same clear error and exits 2 (usage), having sent nothing", async () => {
    const { emulator } = await emulatorWithClient();
    const child = spawn(
      process.execPath,
      [
        ...nodeEntry("cli/run.ts"),
        "run",
        "ip-tro-check",
        "--db",
        join(dir, "cli.db"),
        "--param",
        `image=${dataUri(1200)}`,
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY },
      },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("image:");
    expect(stderr).toContain("(1200 characters)");
    expect(stderr).toContain("mainProductImage: must be at most 1000 characters");
    expect(stderr.length).toBeLessThan(1000);
    expect(emulator.ledger().calls).toHaveLength(0);
  });
});
