import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { Emulator } from "../../emulator/index.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { makeTables, runPipelines } from "../../engine/run/runner.js";
import { type SkillsyncServer, signedHeaders, startServer } from "../../server/index.js";
import { CLI_CASES, type CommandCase, PARAM_CASES, PRICE_CASES } from "./corpus/commands.js";
import { GOOD_PIPELINE, PIPELINE_CASES } from "./corpus/pipelines.js";
import { SERVER_CASES, type ServerCase } from "./corpus/server.js";
import { cli, cliEnv } from "./support/cli.js";
import { suiteClient, suiteEmulator } from "./support/emulator.js";
import { fingerprint } from "./support/fingerprint.js";
import { API_KEY, SERVER_SECRET } from "./support/secrets.js";
import { addFigures, filesDir, keepOutput } from "./support/suite.js";
import { suiteWarehouse } from "./support/warehouses.js";

// Each bad input must be refused with a clear error at the right place (exit 2; 400/401/404/405/413
// for the server), and nothing sent (the emulator's ledger is unchanged) or written (every table's
// row count is unchanged: no rows, no run rows, no ledger rows).
const f = {
  tried: 0,
  rejected: 0,
  sent: 0,
  written: 0,
  pipelines: 0,
  params: 0,
  prices: 0,
  cli: 0,
  server: 0,
};
const problems: string[] = [];

let emulator: Emulator;
let db: string;
let probe: Warehouse;

beforeAll(async () => {
  emulator = await suiteEmulator();
  db = suiteWarehouse("sqlite", "bad_input");
  // A warehouse with a run in it already, so "nothing written" is measured against real content.
  probe = await openWarehouse(db);
  const client = suiteClient(emulator);
  await runPipelines({
    warehouse: probe,
    client,
    pipelines: [loadPipeline("marketplace-search")],
    params: { keyword: ["baseline"] },
  });
  await client.close();
});

afterAll(async () => {
  await probe.close();
  await emulator.stop();
  addFigures("bad_input", f);
  console.log(`bad input: ${JSON.stringify(f)}`);
});

/** Runs one refusal check: nothing sent, nothing written, and what `check` says about the answer. */
async function refused(
  kind: keyof typeof f,
  name: string,
  attempt: () => Promise<string | undefined>,
  w: Warehouse = probe,
): Promise<void> {
  f.tried++;
  (f[kind] as number)++;
  const calls = emulator.ledger().totalCalls;
  const before = await fingerprint(w);
  const problem = await attempt().catch((err: unknown) => `threw ${String(err)}`);
  const after = await fingerprint(w);
  if (emulator.ledger().totalCalls !== calls) {
    f.sent++;
    problems.push(`${name}: ${emulator.ledger().totalCalls - calls} call(s) sent`);
  }
  // A signed request's signature is recorded before anything else, so that it cannot be replayed
  // (docs/server.md): that the request was seen, not an effect of it.
  const changed = Object.keys({ ...before, ...after }).filter(
    (t) => before[t] !== after[t] && !(kind === "server" && t === "skillsync_request_signatures"),
  );
  if (changed.length) {
    f.written++;
    problems.push(`${name}: wrote to ${changed.map((t) => `${t} ${before[t]}→${after[t]}`).join(", ")}`);
  }
  if (problem) problems.push(`${name}: ${problem}`);
  else f.rejected++;
}

async function command(c: CommandCase, extraWhere?: RegExp): Promise<string | undefined> {
  const dir = filesDir("bad-input");
  for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), text);
  const args = c.args.map((a) => a.replaceAll("$DIR", dir));
  const r = await cli(c.noDb ? args : [...args, "--db", db], cliEnv(emulator.url, API_KEY));
  const message = r.err.trim();
  const flat = message.replace(/\s+/g, " ");
  if (r.code !== 2) return `exit ${r.code}, expected 2: ${message.slice(0, 300)}`;
  if (!c.where.test(flat)) return `the message does not say ${c.where}: ${message.slice(0, 300)}`;
  if (extraWhere && !extraWhere.test(flat))
    return `the message does not say ${extraWhere}: ${message.slice(0, 300)}`;
  if (message.split("\n").length > 12) return `the message is ${message.split("\n").length} lines long`;
  return undefined;
}

describe("bad input", () => {
  it(`${PIPELINE_CASES.length} bad pipeline files`, async () => {
    problems.length = 0;
    for (const c of PIPELINE_CASES) {
      const dir = filesDir("bad-pipeline");
      for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), text);
      const text = typeof c.text === "string" ? c.text : GOOD_PIPELINE.replace(c.text[0], c.text[1]);
      if (typeof c.text !== "string" && text === GOOD_PIPELINE)
        throw new Error(`${c.name}: the line to break is not there`);
      const file = join(dir, "pipeline.yaml");
      writeFileSync(file, text);
      await refused("pipelines", `pipeline: ${c.name}`, () =>
        command(
          { name: c.name, kind: "cli", args: ["run", file, "--param", "keyword=usb hub"], where: c.where },
          /pipeline file .*pipeline\.yaml|pipeline\.yaml/,
        ),
      );
    }
    expect(problems).toEqual([]);
  });

  it(`${PARAM_CASES.length} bad params`, async () => {
    problems.length = 0;
    for (const c of PARAM_CASES) await refused("params", `params: ${c.name}`, () => command(c));
    expect(problems).toEqual([]);
  });

  it(`${PRICE_CASES.length} bad price files`, async () => {
    problems.length = 0;
    for (const c of PRICE_CASES) await refused("prices", c.name, () => command(c));
    expect(problems).toEqual([]);
  });

  it(`${CLI_CASES.length} bad command lines`, async () => {
    problems.length = 0;
    for (const c of CLI_CASES) await refused("cli", `cli: ${c.name}`, () => command(c));
    expect(problems).toEqual([]);
  });

  it(`${SERVER_CASES.length} bad server requests`, async () => {
    problems.length = 0;
    const w = await openWarehouse(suiteWarehouse("sqlite", "bad_server"));
    // The table the bad page requests name, made as `migrate --pipelines` makes it: each request
    // must fail for its own mistake, not because no run has made the table yet.
    await makeTables(w, [loadPipeline("marketplace-search")]);
    const client = suiteClient(emulator);
    const logs: string[] = [];
    let server: SkillsyncServer | undefined;
    try {
      server = await startServer({
        secret: SERVER_SECRET,
        warehouse: w,
        client,
        maxCredits: 20,
        port: 0,
        host: "127.0.0.1",
        log: (l) => logs.push(l),
      });
      const s = server;
      for (const c of SERVER_CASES) {
        await refused("server", `server: ${c.name}`, () => request(s, c), w);
        if (s.queue.list().length) problems.push(`server: ${c.name}: a run was queued`);
      }
    } finally {
      await server?.close();
      await client.close();
      await w.close();
      keepOutput("server", logs.join("\n"));
    }
    expect(problems).toEqual([]);
    expect(f.tried).toBeGreaterThanOrEqual(100);
  });
});

async function request(server: SkillsyncServer, c: ServerCase): Promise<string | undefined> {
  const body = c.body === undefined ? "" : typeof c.body === "string" ? c.body : JSON.stringify(c.body);
  const now = Math.floor(Date.now() / 1000);
  const signed = (secret: string, timestamp = now, signBody = body) =>
    signedHeaders(secret, { method: c.method, pathWithQuery: c.path, body: signBody, timestamp });
  const sign = c.sign ?? "ok";
  const headers: Record<string, string> =
    sign === "none"
      ? {}
      : sign === "wrong-secret"
        ? signed("another-secret-0123456789abcdef-0123456789")
        : sign === "stale"
          ? signed(SERVER_SECRET, now - 3600)
          : sign === "future"
            ? signed(SERVER_SECRET, now + 3600)
            : sign === "other-body"
              ? signed(SERVER_SECRET, now, `${body} `)
              : sign === "malformed"
                ? { ...signed(SERVER_SECRET), "X-Skillsync-Signature": "not-hex" }
                : signed(SERVER_SECRET);
  const send = () =>
    fetch(`${server.url}${c.path}`, {
      method: c.method,
      headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
      ...(c.method === "POST" ? { body } : {}),
    });
  if (sign === "replay") await (await send()).text();
  const res = await send();
  const text = await res.text();
  keepOutput("server-answers", `${c.method} ${c.path.slice(0, 120)} ${res.status} ${text.slice(0, 500)}`);
  if (res.status !== c.status) return `answered ${res.status}, expected ${c.status}: ${text.slice(0, 300)}`;
  let json: { error?: { code?: string; message?: string; issues?: unknown } };
  try {
    json = JSON.parse(text);
  } catch {
    return `the answer is not JSON: ${text.slice(0, 200)}`;
  }
  const said = `${json.error?.message ?? ""} ${JSON.stringify(json.error?.issues ?? "")}`.replace(
    /\s+/g,
    " ",
  );
  if (!json.error?.code) return `no error code in ${text.slice(0, 200)}`;
  if (!c.where.test(said)) return `the error does not say ${c.where}: ${said.slice(0, 300)}`;
  return undefined;
}
