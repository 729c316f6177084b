import { spawn } from "node:child_process";
import { describe, expect, it, onTestFailed } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { targetHash, writeEvent } from "../../../store/outbox.js";
import { outboxRows } from "../../../store/outbox-claim.js";
import { afterTest } from "../../helpers/after-test.js";
import { nodeEntry } from "../../helpers/node-entry.js";
import { startReceiver } from "../../helpers/notify-receiver.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

/** What a claim holds an event for (engine/notify/deliver.ts): the old wait after a killed deliverer. */
const LEASE_MS = 60_000;

/** `skillsync serve --notify URL` as its own process: it delivers the outbox every 2 s. */
function serve(db: string, hook: string) {
  const child = spawn(
    process.execPath,
    nodeEntry("cli/run.ts", "serve", "--port", "0", "--db", db, "--notify", hook),
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: "",
        SKILLSYNC_NOTIFY_URL: "",
        SKILL_API_KEY: "sk-dead-claimer-test-0123456789",
        SKILL_API_BASE_URL: "http://127.0.0.1:9",
        SKILLSYNC_SERVER_SECRET: "dead-claimer-server-secret-0123456789",
      },
    },
  );
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  onTestFailed(() => console.error(`--- serve ${child.pid} stderr:\n${err.slice(-3000)}`));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  afterTest(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  return { child, exited };
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`notifications claimed by a killed process (${kind})`, () => {
    it("are delivered by the next process on the host at once, not after the lease", async () => {
      const hook = await startReceiver("hang");
      const db = freshWarehouseUrl(kind);
      const w = await openWarehouse(db);
      afterTest(() => w.close());
      await migrateToLatest(w);
      const target = { hash: targetHash(hook.url) };
      for (const run of ["r1", "r2", "r3"])
        await writeEvent(w.db, [target], { kind: "run.failed", runId: run, payload: { run } });

      // The first deliverer claims all three and hangs on the first POST: the receiver never answers.
      const first = serve(db, hook.url);
      await until(async () => hook.state.posts >= 1, 30_000, "the first POST");
      const held = await outboxRows(w);
      expect(held.map((r) => Number(r["claimed_pid"]))).toEqual([
        first.child.pid,
        first.child.pid,
        first.child.pid,
      ]);
      first.child.kill("SIGKILL");
      await first.exited;
      const killedAt = Date.now();

      hook.state.mode = "ok";
      serve(db, hook.url);
      await until(
        async () => (await outboxRows(w)).every((r) => r["delivered_at"] !== null),
        LEASE_MS / 2,
        "every event delivered by the second process",
      );
      expect(Date.now() - killedAt).toBeLessThan(LEASE_MS / 2);
      // Each event received once after the kill, by its stable id (the hung POST's id included).
      const ids = (await outboxRows(w)).map((r) => String(r["event_id"]));
      expect([...hook.counts().keys()].sort()).toEqual([...ids].sort());
      for (const n of hook.counts().values()) expect(n).toBe(1);
    }, 90_000);
  });
}
