import { spawn } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { afterTest } from "../../helpers/after-test.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { nodeEntry } from "../../helpers/node-entry.js";
import { PG_URL, throwawayDatabase } from "../../helpers/warehouses.js";

// Issue 47: a Postgres that drops the connection gave the driver's bare "Connection terminated
// unexpectedly" (or ended the process on an unheard "error" event).

describe.skipIf(!PG_URL)("the warehouse connection lost in the middle of a run", () => {
  it("says what was lost, where the run was and that nothing was half-written (exit 1); the same command resumes", async () => {
    const { url, name } = await throwawayDatabase("lost");
    const { emulator } = await emulatorWithClient({ latencyMs: 200 });
    const env = { DATABASE_URL: url, SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    expect((await cli(["migrate"], env)).code).toBe(0);
    const args = [
      "run",
      "marketplace-search",
      ...Array.from({ length: 40 }, (_, i) => `--param=keyword=k${i}`),
    ];
    const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    afterTest(() => child.kill("SIGKILL"));
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let done = false;
    void exited.then(() => {
      done = true;
    });
    // Once the run has started, every session of its database is ended, again and again, until the
    // run stops: an idle one is replaced by the pool, one in a transaction or a statement is lost.
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      while (!done && !/call\(s\) planned/.test(err)) await new Promise((r) => setTimeout(r, 20));
      while (!done) {
        await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
          [name],
        );
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await admin.end();
    }
    expect(await exited, err).toBe(1);
    expect(err).toMatch(
      new RegExp(
        `the connection to the warehouse postgres://.*/${name} was lost \\(terminating connection due to administrator command\\) (during run r\\S+, in pipeline marketplace-search with \\d+ of 40 calls done|while the run was starting)\\. Nothing was half-written`,
      ),
    );
    expect(err).toContain("Run the same command again to resume");
    expect(err).not.toMatch(/node:events|Unhandled 'error' event/);
    const again = await cli(args, env);
    expect(again.code, again.err).toBe(0);
    expect(again.out + again.err).toMatch(/\(resumed\): succeeded/);
  }, 120_000);
});
