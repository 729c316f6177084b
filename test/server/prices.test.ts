import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pricesOption } from "../../cli/context.js";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { signedHeaders } from "../../server/index.js";
import { setBudget } from "../../store/budget-status.js";
import { migrateToLatest } from "../../store/migrate.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { writePriceFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { SECRET, startTestServer } from "./helpers.js";

// Issue 20: `serve` reserved at catalog prices while `run` used the user's price file, and went
// 15 credits over a 45-credit daily budget. It now takes --prices / SKILLSYNC_PRICES like `run`.
const children: ChildProcess[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("prices everywhere pipelines run", () => {
  it("SKILLSYNC_PRICES is the default of --prices", () => {
    const file = writePriceFile("marketplace-search: 3\n");
    expect(pricesOption(undefined).get("marketplace-search")).toEqual({ perCall: 1, source: "catalog" });
    vi.stubEnv("SKILLSYNC_PRICES", file);
    expect(pricesOption(undefined).get("marketplace-search")).toEqual({ perCall: 3, source: "file" });
    expect(() => pricesOption(tmpdir())).toThrow(/price file/);
  });

  it.each([
    ["--prices", true],
    ["SKILLSYNC_PRICES", false],
  ])(
    "serve with %s keeps the daily budget on the emulator's ledger",
    async (_how, flag) => {
      const { emulator } = await emulatorWithClient({ prices: { "marketplace-search": 3 } });
      const db = freshWarehouseUrl("sqlite");
      const w = await openWarehouse(db);
      await migrateToLatest(w);
      await setBudget(w, "daily", 45);
      await w.close();
      const file = writePriceFile("marketplace-search: 3\n");
      const child = spawn(
        process.execPath,
        [
          ...nodeEntry("cli/run.ts"),
          "serve",
          "--port",
          "0",
          "--db",
          db,
          "--max-credits",
          "1000",
          ...(flag ? ["--prices", file] : []),
        ],
        {
          stdio: ["ignore", "pipe", "pipe"],
          env: {
            ...process.env,
            SKILLSYNC_SERVER_SECRET: SECRET,
            SKILL_API_BASE_URL: emulator.url,
            SKILL_API_KEY: DEMO_KEY,
            SKILLSYNC_PRICES: flag ? "" : file,
          },
        },
      );
      children.push(child);
      let out = "";
      let err = "";
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
      });
      child.stderr?.on("data", (d: Buffer) => {
        err += d.toString();
      });
      for (let i = 0; i < 600 && !/Press Ctrl\+C/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      expect(url, err).toBeDefined();
      const signed = async (method: string, path: string, body = "") => {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            ...(body ? { "content-type": "application/json" } : {}),
            ...signedHeaders(SECRET, { method, pathWithQuery: path, body }),
          },
          ...(body ? { body } : {}),
        });
        return { status: res.status, json: (await res.json()) as Record<string, unknown> };
      };
      const keywords = Array.from({ length: 30 }, (_, i) => `kw ${i}`);
      const posted = await signed(
        "POST",
        "/runs",
        JSON.stringify({ pipeline: "marketplace-search", params: { keyword: keywords } }),
      );
      expect(posted.status, JSON.stringify(posted.json)).toBe(202);
      const id = String(posted.json["runId"]);
      let job: Record<string, unknown> = {};
      for (let i = 0; i < 600; i++) {
        job = (await signed("GET", `/runs/${id}?n=${i}`)).json;
        if (!["queued", "running"].includes(String(job["status"]))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(job["status"]).toBe("ceiling");
      expect(emulator.ledger().totalCredits).toBe(45);
      child.kill("SIGTERM");
    },
    60_000,
  );

  it("a comma-joined value through the server stays under maxCredits on the emulator's ledger", async () => {
    const t = await startTestServer("sqlite");
    const ids = Array.from({ length: 100 }, (_, i) => `US${4_000_000 + i}B2`);
    const posted = await t.call("POST", "/runs", {
      pipeline: "patent-claims",
      params: { patent: [ids.slice(0, 50).join(","), ids.slice(50).join(",")] },
      maxCredits: 2,
    });
    expect(posted.status, posted.text).toBe(202);
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 400; i++) {
      job = (await t.call("GET", `/runs/${posted.json.runId}?n=${i}`)).json;
      if (!["queued", "running"].includes(String(job["status"]))) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(job["status"]).toBe("ceiling");
    // 50 were charged before (the value was priced as 1 identifier).
    expect(t.emulator.ledger().totalCredits).toBeLessThanOrEqual(2);
  });
});
