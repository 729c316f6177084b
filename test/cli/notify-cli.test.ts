import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { startReceiver } from "../helpers/notify-receiver.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

// Every product's title is text: every record is rejected, the run ends `warnings` (exit 5).
const rejecting = (schedule = "") =>
  writePipelineFile(`name: notify-cli
skill: marketplace-search
params:
  keyword: { required: true }
request:
  keyword: "{{keyword}}"
freshness: 0
records:
  path: products
  table: notify_cli
  mode: append
  columns:
    asin: text
    title: number
${schedule}`);

async function run(args: string[], db: string, env: Record<string, string | undefined> = {}) {
  const { emulator } = await emulatorWithClient();
  const t = performance.now();
  const r = await cli(["run", ...args, "--param", "keyword=lamp", "--db", db], {
    SKILL_API_BASE_URL: emulator.url,
    SKILL_API_KEY: DEMO_KEY,
    SKILLSYNC_NOTIFY_URL: undefined,
    ...env,
  });
  return { ...r, ms: performance.now() - t };
}

describe("--notify and SKILLSYNC_NOTIFY_URL are checked before anything runs", () => {
  it("a URL that is not http(s) is exit 2, naming the flag or variable, never repeating the URL", async () => {
    const db = freshWarehouseUrl("sqlite");
    const flag = await run([rejecting(), "--notify", "ftp://hooks.example/T0/secret-token-abc123"], db);
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/--notify: the notification URL is not an http\(s\) URL \(its scheme is ftp:\)/);
    expect(flag.err).not.toContain("secret-token-abc123");
    const env = await run([rejecting()], db, { SKILLSYNC_NOTIFY_URL: "not a url" });
    expect(env.code).toBe(2);
    expect(env.err).toMatch(/SKILLSYNC_NOTIFY_URL: the notification URL is not an http\(s\) URL/);
  });

  it("a schedule's notify block: an unset variable is exit 2 naming it and the file; a bad URL is exit 2 with its line", async () => {
    const db = freshWarehouseUrl("sqlite");
    const block = `schedule:\n  cron: "0 6 * * *"\n  params: { keyword: lamp }\n  notify: { url: env:NOTIFY_CLI_HOOK, on: [failed] }\n`;
    const file = rejecting(block);
    const r = await cli(["schedule", file, "--db", db], { NOTIFY_CLI_HOOK: undefined });
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `${file} schedule.notify.url: the environment variable NOTIFY_CLI_HOOK is not set`,
    );
    // Listing needs no webhook.
    expect((await cli(["schedule", file, "--list", "--db", db], { NOTIFY_CLI_HOOK: undefined })).code).toBe(
      0,
    );
    const bad = rejecting(block.replace("env:NOTIFY_CLI_HOOK", "ftp://x/y"));
    const b = await cli(["schedule", bad, "--list", "--db", db]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/schedule\.notify\.url.*neither env:NAME.*line 18/s);
  });
});

describe.each(WAREHOUSE_KINDS)("run --notify (%s)", (kind) => {
  it.skipIf(unavailable(kind))("the receiver gets the run's event before the command returns", async () => {
    const hook = await startReceiver();
    const r = await run([rejecting(), "--notify", hook.url], freshWarehouseUrl(kind));
    expect(r.code).toBe(5);
    expect(hook.received.map((e) => e.kind)).toEqual(["run.warnings"]);
    expect(hook.received[0]!.body.text).toMatch(/ended with warnings/);
    expect(r.out + r.err).not.toContain(hook.url);
  });

  it.skipIf(unavailable(kind))("a receiver that never answers delays the run by 1 s at most", async () => {
    const hook = await startReceiver("hang");
    const file = rejecting();
    // Warm-up (modules, the emulator's first answers), then runs without and with the webhook.
    await run([file], freshWarehouseUrl(kind));
    const without = Math.min(
      (await run([file], freshWarehouseUrl(kind))).ms,
      (await run([file], freshWarehouseUrl(kind))).ms,
    );
    const withHook = await run([file, "--notify", hook.url], freshWarehouseUrl(kind));
    const again = await run([file, "--notify", hook.url], freshWarehouseUrl(kind));
    expect([withHook.code, again.code]).toEqual([5, 5]);
    expect(hook.state.posts).toBe(2);
    // 1 s is the bound (deliverWithin races a timer); the rest is the noise of whole runs on a
    // busy machine, which the fastest of two runs each way keeps small. A hang would add 10 s.
    expect(Math.min(withHook.ms, again.ms) - without).toBeLessThan(1000 + 700);
    // Said on stderr, without the URL: the event waits in the outbox for the next deliverer.
    expect(withHook.err).toMatch(
      /notification ev_\w+ \(run\.warnings\) to --notify not delivered: timed out/,
    );
    expect(withHook.err).not.toContain(hook.url);
  });
});
