import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../cli/main.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await fakes.stop();
});

const pipelineFile = fileURLToPath(new URL("../../server/pipelines/sheet-keywords.yaml", import.meta.url));

describe("skillsync run with sheet inputs and outputs", () => {
  it("reads the keywords from the sheet and pushes the run's rows back", async () => {
    const { emulator } = await emulatorWithClient();
    const fake = await fakes.start();
    fake.createSpreadsheet("book1", [
      { title: "Keywords", values: [["keyword"], ["usb hub"], ["desk lamp"]] },
    ]);
    vi.stubEnv("SKILL_API_BASE_URL", emulator.url);
    vi.stubEnv("SKILL_API_KEY", DEMO_KEY);
    vi.stubEnv("SKILLSYNC_SHEETS_ACCESS_TOKEN", fake.token);
    vi.stubEnv("SKILLSYNC_SHEETS_API_URL", fake.url);
    let out = "";
    let err = "";
    vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => {
      out += String(c);
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => {
      err += String(c);
      return true;
    });
    const db = freshWarehouseUrl("sqlite");
    const code = await main(["run", pipelineFile, "--db", db, "--param", "label=Z"]);
    expect(code, err).toBe(0);
    const pushed = /sheet: sheet-keywords: (\d+) row\(s\) to "Results Z" \(replace\)/.exec(out);
    expect(pushed, out).not.toBeNull();
    expect(emulator.ledger().totalCalls).toBe(2);
    expect(fake.values("book1", "Results Z")).toHaveLength(Number(pushed![1]) + 1);

    vi.stubEnv("SKILLSYNC_SHEETS_ACCESS_TOKEN", "");
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", "");
    expect(await main(["run", pipelineFile, "--db", db])).toBe(2);
    expect(err).toMatch(/sheet inputs need Google credentials/);
  });
});
