import { readdirSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { builtinPipelineDir, type LoadedPipeline, loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

// A normal answer must not make a built-in warn: a warning that shows on every run (the walkthrough's
// patent-bibliography once warned that no record had pct_entry_date) teaches users to ignore warnings.

const BUILTINS = readdirSync(builtinPipelineDir())
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => f.slice(0, -".yaml".length))
  .sort();

// Enough numbers of every office and kind that each documented member shows in some answer.
const PATENTS = [
  "US11234567B2",
  "US20210123456A1",
  "EP4012345A1",
  "EP3456789B1",
  "CN116871492A",
  "CN114123456B",
  "JP2021123456A",
  "WO2021123456A1",
  "WO2022234567A1",
  "KR102345678B1",
  "DE102021123456A1",
  "US10400037B2",
  "US10400074B2",
  "US11876543B2",
  "EP3999888A1",
  "WO2020111222A1",
];
const IMAGES = ["https://img.example/lamp.jpg", "https://img.example/mug.jpg", "https://img.example/toy.jpg"];
const RANGE = { start: ["2026-10-20"], end: ["2026-10-31"] };

function paramsFor(name: string): Record<string, string[]> {
  if (name === "marketplace-search") return { keyword: ["desk lamp", "yoga mat"], pages: ["2"] };
  if (name === "patent-search")
    return { q: ["drone battery cooling", "wireless charging coil"], pages: ["2"] };
  if (name === "patent-search-by-date")
    return { q: ["battery thermal management"], start: ["2026-07-01"], end: ["2026-10-31"], step: ["1mo"] };
  if (name.startsWith("patent-")) return { patent: PATENTS };
  if (name.startsWith("ip-")) return { image: IMAGES };
  if (name.startsWith("ads-")) return { connection: ["3"], ...RANGE, step: ["range"] };
  throw new Error(`no params for the built-in pipeline ${name}: add them here`);
}

/** The report built-ins wait 5 s before their first status poll; the emulator's report is ready at once. */
function quickPolls(p: LoadedPipeline): LoadedPipeline {
  return p.report ? { ...p, report: { ...p.report, poll: { ...p.report.poll, initial: "10ms" } } } : p;
}

describe("built-in pipelines against the emulator", () => {
  let w: Warehouse;
  beforeEach(async () => {
    w = await openWarehouse(freshWarehouseUrl("sqlite"));
    return () => w.close();
  });

  it("has params for every built-in", () => {
    expect(BUILTINS.length).toBeGreaterThanOrEqual(22);
    for (const name of BUILTINS) expect(() => paramsFor(name)).not.toThrow();
  });

  it.each(BUILTINS)("%s succeeds without a warning on normal answers", async (name) => {
    const { client } = await emulatorWithClient({ reportPendingPolls: 0 });
    const summary = await runPipelines({
      warehouse: w,
      client,
      pipelines: [quickPolls(loadPipeline(name))],
      params: paramsFor(name),
    });
    expect(summary.failures).toEqual([]);
    expect(summary.warnings).toEqual([]);
    expect(summary.status).toBe("succeeded");
    expect(summary.counters.rowsWritten).toBeGreaterThan(0);
  });
});
