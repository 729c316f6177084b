import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY } from "../helpers/emulator.js";
import { startMcp } from "../mcp/helpers.js";
import { startTestServer } from "../server/helpers.js";

/** Every member name in a JSON value, with its path (`calls.done`), array items as `[]`. */
function names(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => names(v, `${path}[]`));
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const here = path ? `${path}.${k}` : k;
    return [here, ...names(v, here)];
  });
}

const CAMEL = /^[a-z][a-zA-Z0-9]*$/;
const allCamel = (paths: string[]) =>
  paths.filter((p) => !p.split(/\.|\[\]/).every((n) => n === "" || CAMEL.test(n)));

describe("one casing for JSON field names", () => {
  it("a run as `runs --json`, `runs ID --json`, the server's GET /runs/ID and MCP's runs tool: the same camelCase members", async () => {
    const t = await startTestServer("sqlite");
    const db = t.warehouse.target.kind === "sqlite" ? t.warehouse.target.path : "";
    const env = { SKILL_API_BASE_URL: t.emulator.url, SKILL_API_KEY: DEMO_KEY };
    const run = await cli(
      ["run", "marketplace-search", "--db", db, "--param", "keyword=casing", "--json"],
      env,
    );
    expect(run.code).toBe(0);
    const runId = (JSON.parse(run.out) as { runId: string }).runId;
    expect(allCamel(names(JSON.parse(run.out)))).toEqual([]);

    const list = JSON.parse((await cli(["runs", "--db", db, "--json"])).out) as unknown[];
    const one = JSON.parse((await cli(["runs", runId, "--db", db, "--json"])).out) as { run: unknown };
    const served = await t.call("GET", `/runs/${runId}`);
    expect(served.status).toBe(200);
    const mcp = await startMcp(["--db", db, "--max-credits", "1"], env);
    const agent = (await mcp.call("runs", { runId })).json as { run: unknown };

    const shape = names(served.json).sort();
    expect(allCamel(shape)).toEqual([]);
    expect(names(list[0]).sort()).toEqual(shape);
    expect(names(one.run).sort()).toEqual(shape);
    expect(names(agent.run).sort()).toEqual(shape);
    expect(allCamel(names(one))).toEqual([]);
  });
});
