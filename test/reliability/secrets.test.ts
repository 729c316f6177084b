import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import type { Emulator } from "../../emulator/index.js";
import { type SkillsyncServer, signedHeaders, startServer } from "../../server/index.js";
import { type SheetsFake, startSheetsFake } from "../fakes/sheets-fake.js";
import { cli, cliEnv } from "./support/cli.js";
import { suiteClient, suiteEmulator } from "./support/emulator.js";
import { emptyCounts, scanText } from "./support/scan.js";
import {
  API_KEY,
  GOOGLE_ACCESS_TOKEN,
  GOOGLE_PRIVATE_KEY_MARK,
  SERVER_SECRET,
  serviceAccountKey,
} from "./support/secrets.js";
import { addFigures, filesDir, keepOutput } from "./support/suite.js";
import { suiteWarehouse } from "./support/warehouses.js";

// The paths where a secret could slip out: errors that quote a request or a URL, stack traces
// (--verbose), failed runs' stored errors, the server's log and 401 answers, Google credentials that
// do not work. Everything they print or write is kept; the suite's global teardown then scans it
// all (with the warehouses, stored responses and the sheet's cells) for the four secrets.
const sheetPipeline = fileURLToPath(new URL("../server/pipelines/sheet-keywords.yaml", import.meta.url));

describe("secrets stay secret", () => {
  let emulator: Emulator;
  let fake: SheetsFake;
  const leaks = emptyCounts().leaks;
  const seen = (where: string, text: string) => {
    keepOutput("secrets", `${where}\n${text}`);
    scanText(text, where, leaks);
  };

  beforeAll(async () => {
    emulator = await suiteEmulator({ errorRate: 0.3, seed: 5 });
    fake = await startSheetsFake({ token: GOOGLE_ACCESS_TOKEN });
    fake.createSpreadsheet("book1", [
      { title: "Keywords", values: [["keyword"], ["usb hub"], ["desk lamp"]] },
    ]);
    fake.createSpreadsheet("closed");
    fake.deny("closed");
  });
  afterAll(async () => {
    // The sheet's cells are part of what the tool wrote.
    const dir = filesDir("sheets");
    writeFileSync(join(dir, "book1.json"), JSON.stringify(fake.values("book1", "Results S")));
    await fake.stop();
    await emulator.stop();
    addFigures("secrets", { scenarios: 7, leaks_seen_here: leaks.length });
  });

  it("the API key: not in errors, stack traces, failed runs or their stored errors", async () => {
    const db = suiteWarehouse("sqlite", "secrets_cli");
    const env = cliEnv(emulator.url, API_KEY);
    const runs = [
      // 5xx answers: failures stored in skillsync_calls and skillsync_runs.
      await cli(
        [
          "run",
          "marketplace-search",
          "--param",
          "keyword=a",
          "--param",
          "keyword=b",
          "--param",
          "keyword=c",
          "--db",
          db,
          "--verbose",
        ],
        env,
      ),
      // A key the API refuses, one that contains the real one.
      await cli(
        ["run", "patent-search", "--param", "q=lidar", "--db", db, "--verbose"],
        cliEnv(emulator.url, `${API_KEY}-old`),
      ),
      // A base URL that carries the key (refused before anything is sent).
      await cli(
        [
          "call",
          "websearch-patent-search",
          "--body",
          '{"q":"x"}',
          "--base-url",
          `http://127.0.0.1:9/?key=${API_KEY}`,
          "--verbose",
        ],
        env,
      ),
      await cli(
        [
          "call",
          "websearch-patent-search",
          "--body",
          '{"q":"x"}',
          "--base-url",
          `http://user:${API_KEY}@127.0.0.1:9/`,
        ],
        env,
      ),
      // Nothing listens there: a connection error, with the stack.
      await cli(
        [
          "call",
          "websearch-patent-search",
          "--body",
          '{"q":"x"}',
          "--base-url",
          "http://127.0.0.1:9",
          "--verbose",
        ],
        env,
      ),
      await cli(["runs", "--db", db, "--json"], env),
    ];
    for (const [i, r] of runs.entries()) seen(`cli ${i}`, `${r.out}\n${r.err}`);
    expect(runs[1]!.code).toBe(4);
    expect(runs[2]!.code).toBe(2);
    expect(leaks).toEqual([]);
  });

  it("the server secret: not in the log, not in 401 answers, not in run views", async () => {
    const w = await openWarehouse(suiteWarehouse("sqlite", "secrets_server"));
    const client = suiteClient(emulator);
    const logs: string[] = [];
    let server: SkillsyncServer | undefined;
    try {
      server = await startServer({
        secret: SERVER_SECRET,
        warehouse: w,
        client,
        maxCredits: 10,
        port: 0,
        log: (l) => logs.push(l),
      });
      const s = server;
      const call = async (method: string, path: string, body: string, secret = SERVER_SECRET) => {
        const headers = signedHeaders(secret, { method, pathWithQuery: path, body });
        const res = await fetch(`${s.url}${path}`, {
          method,
          headers: { ...headers, "content-type": "application/json" },
          ...(body ? { body } : {}),
        });
        const text = await res.text();
        seen(`server ${method} answered ${res.status}`, text);
        return res.status;
      };
      expect(await call("GET", "/runs", "", `${SERVER_SECRET}-rotated`)).toBe(401);
      expect(
        await call(
          "POST",
          "/runs",
          JSON.stringify({
            pipeline: "marketplace-search",
            params: { keyword: [SERVER_SECRET.slice(0, 7)] },
          }),
        ),
      ).toBe(202);
      // The secret itself typed into a request where it does not belong: answered, never echoed.
      expect(await call("POST", "/runs", JSON.stringify({ pipeline: SERVER_SECRET }))).toBe(400);
      expect(await call("GET", `/tables/${SERVER_SECRET}`, "")).toBe(404);
      expect(await call("GET", "/runs?x=1", "")).toBe(200);
    } finally {
      await server?.close();
      await client.close();
      await w.close();
    }
    seen("server log", logs.join("\n"));
    expect(logs.length).toBeGreaterThanOrEqual(5);
    expect(leaks).toEqual([]);
  });

  it("Google credentials: the access token and a key file's private key in no output", async () => {
    const db = suiteWarehouse("sqlite", "secrets_sheets");
    const sheetsEnv = {
      ...cliEnv(emulator.url, API_KEY),
      SKILLSYNC_SHEETS_ACCESS_TOKEN: GOOGLE_ACCESS_TOKEN,
      SKILLSYNC_SHEETS_API_URL: fake.url,
    };
    emulator.setFaults({ errorRate: 0 });
    // A run reading its keywords from a sheet and pushing its rows back, with the token.
    const run = await cli(["run", sheetPipeline, "--db", db, "--param", "label=S"], sheetsEnv);
    seen("sheet run", `${run.out}\n${run.err}`);
    expect(run.code, run.err).toBe(0);
    expect(fake.values("book1", "Results S").length).toBeGreaterThan(1);
    // A spreadsheet not shared with us (403), and a token Google no longer takes (401).
    const denied = await cli(
      ["sheets", "read", "--spreadsheet", "closed", "--range", "A1:A3", "--verbose"],
      sheetsEnv,
    );
    const expired = await cli(
      [
        "sheets",
        "push",
        "--table",
        "sheet_keyword_results",
        "--spreadsheet",
        "book1",
        "--tab",
        "X",
        "--db",
        db,
        "--verbose",
      ],
      { ...sheetsEnv, SKILLSYNC_SHEETS_ACCESS_TOKEN: `${GOOGLE_ACCESS_TOKEN}-expired` },
    );
    // A service-account key file whose private key cannot sign: said plainly, the key never shown.
    // The key file is the test's input, kept outside the folder the final scan reads.
    const keyDir = mkdtempSync(join(tmpdir(), "skillsync-key-"));
    const keyFile = join(keyDir, "service-account.json");
    writeFileSync(keyFile, JSON.stringify(serviceAccountKey()));
    const badKey = await cli(
      ["sheets", "read", "--spreadsheet", "book1", "--range", "Keywords!A2:A", "--verbose"],
      {
        ...sheetsEnv,
        SKILLSYNC_SHEETS_ACCESS_TOKEN: undefined,
        GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      },
    );
    for (const [name, r] of Object.entries({ denied, expired, badKey })) {
      seen(`sheets ${name}`, `${r.out}\n${r.err}`);
      expect(r.code, `${name}: ${r.err}`).not.toBe(0);
    }
    expect(denied.err).toMatch(/no access/);
    expect(expired.err).toMatch(/refused the credentials/);
    rmSync(keyDir, { recursive: true, force: true });
    expect(badKey.err).not.toContain(GOOGLE_PRIVATE_KEY_MARK);
    expect(leaks).toEqual([]);
  });
});
