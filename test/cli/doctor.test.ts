import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { afterTest } from "../helpers/after-test.js";
import { cli } from "../helpers/cli.js";
import { closedPort } from "../helpers/closed-port.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { startReceiver } from "../helpers/notify-receiver.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

// Issue 32 §4: `doctor` checks a set-up without spending a credit: one line per check, ✓/✗ and
// the fix; exit 0 only when all pass.
const pipelinesDir = (name: string, yaml: string) => dirname(writePipelineFile(yaml, {}, name));

const GOOD = `name: doc-search
skill: marketplace-search
params:
  keyword: { required: true }
request:
  keyword: "{{keyword}}"
records:
  path: products
  table: doc_rows
  key: [asin]
  columns:
    asin: text
`;

describe.each(WAREHOUSE_KINDS)("doctor (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "a good set-up: all ✓, exit 0, 0 credits on the emulator's ledger",
    async () => {
      // Even an emulator that serves any slug as an operation does not run the probe.
      const { emulator } = await emulatorWithClient({ genericSlugs: true });
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      expect((await cli(["migrate", "--db", db], env)).code).toBe(0);
      const hook = await startReceiver();
      const r = await cli(["doctor", pipelinesDir("a.yaml", GOOD), "--db", db, "--notify", hook.url], env);
      expect(r.out).toMatch(/✓ api: .* answers/);
      expect(r.out).toMatch(/✓ api key: SKILL_API_KEY accepted/);
      expect(r.out).toMatch(/✓ warehouse: /);
      expect(r.out).toMatch(/✓ migrations: current/);
      if (kind === "postgres") expect(r.out).toMatch(/✓ read role: /);
      expect(r.out).toMatch(/✓ pipelines: 1 file\(s\) parse/);
      expect(r.out).toMatch(/✓ notify: /);
      expect(r.out).not.toMatch(/✗/);
      expect(r.code, r.out).toBe(0);
      expect(hook.received.map((e) => e.body)).toEqual([
        { text: "skillsync doctor: test notification", event: { kind: "doctor" } },
      ]);
      const ledger = emulator.ledger();
      expect([ledger.chargedCalls, ledger.totalCredits]).toEqual([0, 0]);
    },
  );
});

// Issue 47 §4: doctor helps a new set-up: pending migrations are a note, webhooks configured
// anywhere get the test event, and only what would stop a run makes the exit code.
describe.each(WAREHOUSE_KINDS)("doctor on a brand-new set-up (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "pending migrations are a note, a schedule file's webhook gets the test event: exit 0, 0 credits",
    async () => {
      const { emulator } = await emulatorWithClient();
      const hook = await startReceiver();
      const flagHook = await startReceiver();
      const scheduled = `${GOOD}schedule:\n  cron: "0 6 * * *"\n  params: { keyword: lamp }\n  notify: { url: env:DOCTOR_SCHEDULE_HOOK }\n`;
      const env = {
        SKILL_API_BASE_URL: emulator.url,
        SKILL_API_KEY: DEMO_KEY,
        DOCTOR_SCHEDULE_HOOK: hook.url,
        SKILLSYNC_NOTIFY_URL: flagHook.url,
      };
      // Never migrated: what `git clone`, `npm ci` and a first `doctor` meet.
      const r = await cli(
        ["doctor", pipelinesDir("s.yaml", scheduled), "--db", freshWarehouseUrl(kind)],
        env,
      );
      expect(r.out).toMatch(/• migrations: a new warehouse: its \d+ migrations are applied at the first run/);
      expect(r.out).toMatch(/✓ pipelines: 1 file\(s\) parse, 1 with a schedule/);
      expect(r.out).toMatch(/✓ notify: the webhook of SKILLSYNC_NOTIFY_URL accepted a test event/);
      expect(r.out).toMatch(
        /✓ notify: the webhook of .*s\.yaml schedule\.notify\.url \(DOCTOR_SCHEDULE_HOOK\) accepted/,
      );
      expect(r.out).not.toMatch(/✗/);
      expect(r.out).toContain("all checks passed");
      expect(r.code, r.out).toBe(0);
      const test = { text: "skillsync doctor: test notification", event: { kind: "doctor" } };
      expect(hook.received.map((e) => e.body)).toEqual([test]);
      expect(flagHook.received.map((e) => e.body)).toEqual([test]);
      expect(r.out + r.err).not.toContain(hook.url);
      const ledger = emulator.ledger();
      expect([ledger.chargedCalls, ledger.totalCredits]).toEqual([0, 0]);
    },
  );
});

describe("doctor finds what is wrong", () => {
  it("a wrong key, a stopped Postgres, a bad pipeline file: each ✗ named, exit 2", async () => {
    const { emulator } = await emulatorWithClient();
    const bad = pipelinesDir("bad.yaml", GOOD.replace("records:", "recrods:"));
    const port = await closedPort();
    const r = await cli(["doctor", bad, "--db", `postgres://postgres@127.0.0.1:${port}/test`], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: "sk-not-a-key-of-this-account",
    });
    expect(r.out).toMatch(/✗ api key: SKILL_API_KEY refused: HTTP 401/);
    expect(r.out).toMatch(
      new RegExp(`✗ warehouse: cannot reach Postgres .*:${port}/test: connection refused`),
    );
    expect(r.out).toMatch(/✗ pipelines: invalid pipeline file .*bad\.yaml.*recrods.*line/s);
    expect(r.out).toMatch(/3 check\(s\) failed/);
    expect(r.out).not.toContain("sk-not-a-key-of-this-account");
    expect(r.code).toBe(2);
    expect(emulator.ledger().totalCredits).toBe(0);
  });

  it("an unreachable API and a receiver that refuses; --json", async () => {
    const nothing = `http://127.0.0.1:${await closedPort()}`;
    const r = await cli(
      ["doctor", "--db", freshWarehouseUrl("sqlite"), "--notify", `${nothing}/hook`, "--json"],
      {
        SKILL_API_BASE_URL: nothing,
        SKILL_API_KEY: DEMO_KEY,
      },
    );
    const out = JSON.parse(r.out) as { ok: boolean; checks: { check: string; ok: boolean; fix?: string }[] };
    expect(out.ok).toBe(false);
    const failed = out.checks.filter((c) => !c.ok).map((c) => c.check);
    expect(failed).toEqual(["api", "notify"]);
    for (const c of out.checks.filter((c) => !c.ok)) expect(c.fix).toBeTruthy();
    // A webhook that refuses stops no run: a warning; the unreachable API is what exits 2.
    expect(out.checks.find((c) => c.check === "notify")).toMatchObject({ ok: false, runsAnyway: true });
    expect(out.checks.find((c) => c.check === "migrations")).toMatchObject({ ok: true, note: true });
    expect(r.code).toBe(2);
  });
  it("a Google key file that is not JSON: ✗ naming the file, none of its content shown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-doctor-"));
    afterTest(() => rmSync(dir, { recursive: true, force: true }));
    const keyFile = join(dir, "key.json");
    writeFileSync(keyFile, "private_key=-----BEGIN PRIVATE KEY-----MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
    const r = await cli(["doctor", "--db", freshWarehouseUrl("sqlite")], {
      SKILL_API_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
      SKILL_API_KEY: DEMO_KEY,
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
    });
    expect(r.out).toContain(`✗ sheets: GOOGLE_APPLICATION_CREDENTIALS: ${keyFile} is not JSON`);
    // V8's message quoted the file's first characters: here, the start of the private key.
    expect(r.out + r.err).not.toMatch(/private_k|BEGIN PRIVATE|MIIE/);
  });
});
