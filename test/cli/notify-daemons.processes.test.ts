import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it, onTestFailed } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { outboxRows } from "../../store/outbox-claim.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { startReceiver } from "../helpers/notify-receiver.js";
import { until } from "../helpers/until.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { tempDir, writeScheduledPipeline } from "../scheduler/fixtures.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** `skillsync <args>` from source as its own process; stderr kept for a failing test. */
function skillsync(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...nodeEntry("cli/run.ts"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATABASE_URL: "", SKILLSYNC_NOTIFY_URL: "", ...env },
  });
  children.push(child);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  onTestFailed(() => console.error(`--- skillsync ${args[0]} stderr:\n${err.slice(-3000)}`));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

// `schedule` writes the events (a pipeline's `schedule.notify` block names the webhook by a
// variable); `schedule` and `serve --notify`, two processes on one warehouse, both deliver.
describe.each(WAREHOUSE_KINDS)("schedule and serve deliver, across processes (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "failed runs and skipped ticks reach the webhook once each",
    async () => {
      const { emulator } = await emulatorWithClient();
      const hook = await startReceiver();
      const db = freshWarehouseUrl(kind);
      const file = writeScheduledPipeline(tempDir(), {
        schedule: "  maxFailures: 2\n  notify: { url: env:NOTIFY_DAEMON_HOOK }",
      });
      const env = {
        SKILL_API_BASE_URL: emulator.url,
        // A key the emulator refuses: every run fails, and after two the schedule pauses and skips.
        SKILL_API_KEY: "sk-refused-by-the-emulator-0123",
        NOTIFY_DAEMON_HOOK: hook.url,
        SKILLSYNC_SERVER_SECRET: "notify-daemons-server-secret-0123456789",
      };
      const schedule = skillsync(["schedule", file, "--db", db], env);
      const serve = skillsync(["serve", "--port", "0", "--db", db, "--notify", hook.url], env);
      await until(
        async () => ["run.failed", "schedule.skipped"].every((k) => hook.received.some((r) => r.kind === k)),
        45_000,
        "a failed run and a skipped tick told",
      );
      await schedule.stop();
      // Every event the warehouse holds delivered (serve sends what schedule left): then stopped,
      // the receiver must have each one exactly once.
      const w = await openWarehouse(db);
      let outbox: Record<string, unknown>[] = [];
      try {
        await until(
          async () => {
            outbox = await outboxRows(w);
            return outbox.every((r) => r["delivered_at"] !== null);
          },
          45_000,
          "every event of the outbox delivered",
        );
      } finally {
        await w.close();
      }
      await serve.stop();
      expect(hook.received).toHaveLength(outbox.length);
      expect([...hook.counts().values()].every((n) => n === 1)).toBe(true);
      const failed = hook.received.filter((r) => r.kind === "run.failed");
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed[0]!.body.event).toMatchObject({ trigger: "schedule", pipelines: ["sched-search"] });
      for (const r of hook.received) expect(r.raw).not.toContain("sk-refused-by-the-emulator-0123");
    },
    90_000,
  );
});
