import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { Emulator } from "../../emulator/index.js";
import { startDelivery } from "../../engine/notify/loop.js";
import type { Alert } from "../../store/alerts.js";
import { type CliProcess, cliProcess, workerProcess } from "../engine/distribute/processes.js";
import { rows } from "../engine/fixtures.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { changedBetween, publishedPatents } from "../helpers/legal-status.js";
import { startReceiver } from "../helpers/notify-receiver.js";
import { startSmtpReceiver } from "../helpers/smtp-receiver.js";
import { until } from "../helpers/until.js";
import {
  addWatch,
  allAlerts,
  compareIds,
  deliverAll,
  duplicateAlerts,
  expectedEventIds,
  keysFile,
  weekOf,
} from "./support/alerts.js";
import { cli, cliEnv } from "./support/cli.js";
import { between, envCount, prng } from "./support/prng.js";
import { addFigures, filesDir } from "./support/suite.js";
import { KINDS, type Kind, suiteWarehouse, unavailable } from "./support/warehouses.js";

// Issue 46's acceptance trials: watches on patent legal status, with the emulator's clock moved a
// week per load. (a) The alerts of each load are exactly the watched keys the emulator changed;
// (b) under kill -9 mid-load and a resume (a local run, and a run on workers), every alert reaches
// a loopback webhook and a loopback SMTP server, none lost, none twice once deduplicated by event
// id; (c) four identical loads at once record each alert once; (d) a receiver down for 60 s gets
// them all once it is back.

const KILL_TRIALS = envCount("RELIABILITY_ALERT_KILLS", 20);
const HOOK_VAR = "RELIABILITY_ALERTS_HOOK";

/** The keys each load alerted on: the alerts not in `before` (ids), by key. */
const newKeys = (after: readonly Alert[], before: ReadonlySet<string>) =>
  new Set(after.filter((a) => !before.has(a.id)).map((a) => a.key));

const sorted = (s: Iterable<string>) => [...s].sort();

/** A loaded warehouse at week 0 with `patents`, and a load function for later weeks (in this process). */
async function loadedWarehouse(kind: Kind, label: string, emulator: Emulator, patents: readonly string[]) {
  const db = suiteWarehouse(kind, label);
  const dir = filesDir(label);
  const list = keysFile(dir, "patents.txt", patents);
  const load = async (env: Record<string, string> = {}) => {
    const r = await cli(
      [
        "run",
        "patent-legal-status",
        "--param",
        `patent=@${list}`,
        "--refresh",
        "--db",
        db,
        "--concurrency",
        "8",
      ],
      { ...cliEnv(emulator.url, DEMO_KEY), ...env },
    );
    if (r.code !== 0) throw new Error(`a load of ${label}: exit ${r.code}: ${r.err.slice(-2000)}`);
  };
  await load();
  return { db, dir, list, load };
}

describe.each(KINDS)("alerts on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("1,000 patents, 500 watched, four weekly --refresh loads: each load's alerts are the watched keys that changed, key for key", async () => {
      const { emulator } = await emulatorWithClient({ date: weekOf(0) });
      const patents = publishedPatents(1000, weekOf(0));
      const watched = patents.filter((_, i) => i % 2 === 0);
      const unwatched = patents.filter((_, i) => i % 2 === 1);
      const { db, dir, load } = await loadedWarehouse(kind, "alerts_accuracy", emulator, patents);
      await addWatch(db, "status", ["--keys", `@${keysFile(dir, "watched.txt", watched)}`]);
      const f = { loads: 0, alerts: 0, keys_alerted: 0, unwatched_changed: 0, unchanged_reload_alerts: 0 };
      const seen = new Set<string>();
      for (let week = 1; week <= 4; week++) {
        emulator.setDate(weekOf(week));
        await load();
        const after = await allAlerts(db);
        const keys = newKeys(after, seen);
        const expected = changedBetween(watched, weekOf(week - 1), weekOf(week));
        expect(expected.length, `week ${week}`).toBeGreaterThan(0);
        expect(sorted(keys), `the alerts of week ${week}`).toEqual(sorted(expected));
        const changedUnwatched = changedBetween(unwatched, weekOf(week - 1), weekOf(week));
        expect(changedUnwatched.length).toBeGreaterThan(0);
        f.unwatched_changed += changedUnwatched.length;
        f.alerts += after.length - seen.size;
        f.keys_alerted += keys.size;
        f.loads++;
        for (const a of after) seen.add(a.id);
      }
      // An unchanged reload (the same date): no version, no alert.
      await load();
      const after = await allAlerts(db);
      f.unchanged_reload_alerts = after.length - seen.size;
      expect(f.unchanged_reload_alerts).toBe(0);
      expect(duplicateAlerts(after)).toEqual([]);
      addFigures(
        "alerts",
        Object.fromEntries(Object.entries(f).map(([k, v]) => [`accuracy_${k}_${kind}`, v])),
      );
      console.log(`alerts accuracy ${kind}: ${JSON.stringify(f)}`);
    }, 300_000);

    it("4 identical watched loads at once (4 processes): each alert recorded once, delivered once", async () => {
      const { emulator } = await emulatorWithClient({ date: weekOf(0), latencyMs: 20, jitterMs: 30 });
      const patents = publishedPatents(300, weekOf(0), 46);
      const { db, list } = await loadedWarehouse(kind, "alerts_at_once", emulator, patents);
      const hook = await startReceiver();
      const env = { [HOOK_VAR]: hook.url };
      await addWatch(db, "each", ["--digest", "none", "--notify", `env:${HOOK_VAR}`], env);
      emulator.setDate(weekOf(1));
      const args = ["run", "patent-legal-status", "--param", `patent=@${list}`, "--refresh", "--db", db];
      const runs = Array.from({ length: 4 }, () => cliProcess(args, emulator.url, env));
      const exits = await Promise.all(runs.map((r) => r.exited));
      expect(
        exits.map((e) => e.code),
        runs.map((r) => r.output().slice(-500)).join("\n"),
      ).toEqual([0, 0, 0, 0]);
      const alerts = await allAlerts(db);
      expect(duplicateAlerts(alerts)).toEqual([]);
      expect(sorted(new Set(alerts.map((a) => a.key)))).toEqual(
        sorted(changedBetween(patents, weekOf(0), weekOf(1))),
      );
      await deliverAll(db, env);
      const ids = compareIds(
        hook.received.map((r) => r.id),
        expectedEventIds(alerts, new Set()),
      );
      expect(ids).toMatchObject({ missing: [], unexpected: [] });
      expect(ids.maxPerId).toBeLessThanOrEqual(2);
      addFigures("alerts", {
        [`at_once_alerts_${kind}`]: alerts.length,
        [`at_once_received_twice_${kind}`]: ids.receivedTwice,
      });
    }, 240_000);
  });
});

/** Where a run in another process stands: its paid calls kept (answered, loaded or not) and loaded. */
async function progressOf(w: Warehouse, base: number): Promise<{ kept: number; loaded: number }> {
  const r = await rows<{ kept: unknown; loaded: unknown }>(
    w,
    `select coalesce(sum(case when outcome in ('answered', 'succeeded') then 1 else 0 end), 0) as kept,
       coalesce(sum(case when outcome = 'succeeded' then 1 else 0 end), 0) as loaded
     from skillsync_calls where id > ${base} and credits > 0`,
  ).catch(() => []);
  return { kept: Number(r[0]?.kept ?? 0), loaded: Number(r[0]?.loaded ?? 0) };
}

/** What a trial's runs left in the ledger and the loads (for a failure's message). */
async function trialState(w: Warehouse, base: number): Promise<string> {
  const calls = await rows(
    w,
    `select run_id, outcome, count(*) as n from skillsync_calls where id > ${base} group by run_id, outcome order by 1, 2`,
  );
  const loads = await rows(w, "select * from skillsync_loads order by id desc limit 3");
  return JSON.stringify({ calls, loads });
}

const lastCall = (w: Warehouse) =>
  rows<{ id: unknown }>(w, "select coalesce(max(id), 0) as id from skillsync_calls").then((r) =>
    Number(r[0]?.id ?? 0),
  );

/** 600 patents in 6 calls of 100: a kill after 1 to 5 of them kept or loaded lands mid-load. */
const KILL_PATENTS = 600;
const CALLS = KILL_PATENTS / 100;

/**
 * `trials` weekly loads of a watched warehouse, each killed -9 in the middle of its load and then
 * finished: `local`, the run process killed and run again (it resumes); `workers`, one of two
 * `skillsync worker` processes killed (its batch is taken over after its lease) and replaced. A
 * webhook and an SMTP server receive throughout, from the runs' own delivery; what is left is
 * delivered at the end. Returns the problems found and the figures.
 */
async function killTrials(kind: Kind, mode: "local" | "workers", trials: number, seed: number) {
  const rnd = prng(seed);
  const { emulator } = await emulatorWithClient({ date: weekOf(0), latencyMs: 25, jitterMs: 40 });
  const patents = publishedPatents(KILL_PATENTS, weekOf(0), seed);
  const { db, dir, list } = await loadedWarehouse(kind, `alerts_kill_${mode}`, emulator, patents);
  const hook = await startReceiver();
  const smtp = await startSmtpReceiver();
  const env = { [HOOK_VAR]: hook.url, SKILLSYNC_SMTP_URL: smtp.url, SKILLSYNC_NOTIFY_BACKOFF: "200,1000" };
  const digestKeys = patents.filter((_, i) => i % 2 === 0);
  const eachKeys = patents.filter((_, i) => i % 6 === 0);
  const notify = ["--notify", `env:${HOOK_VAR}`];
  await addWatch(
    db,
    "dig",
    ["--keys", `@${keysFile(dir, "dig.txt", digestKeys)}`, ...notify, "--email", "dig@example.com"],
    env,
  );
  await addWatch(
    db,
    "each",
    [
      "--keys",
      `@${keysFile(dir, "each.txt", eachKeys)}`,
      "--digest",
      "none",
      ...notify,
      "--email",
      "each@example.com",
    ],
    env,
  );
  const workers: CliProcess[] =
    mode === "workers"
      ? await Promise.all([0, 1].map(() => workerProcess(db, emulator.url, ["--concurrency", "2"])))
      : [];
  const w = await openWarehouse(db);
  const problems: string[] = [];
  const f = { trials: 0, killed: 0, finished_before_kill: 0, alerts: 0 };
  const seen = new Set<string>();
  const args = [
    "run",
    "patent-legal-status",
    "--param",
    `patent=@${list}`,
    "--refresh",
    "--db",
    db,
    "--concurrency",
    "2",
  ];
  const runArgs = mode === "workers" ? [...args, "--workers", "--batch-size", "1", "--lease", "5"] : args;
  try {
    for (let week = 1; week <= trials; week++) {
      emulator.setDate(weekOf(week));
      const where = `${kind} ${mode} trial ${week} (seed ${seed})`;
      const base = await lastCall(w);
      const what = rnd() < 0.5 ? "kept" : "loaded";
      const count = between(rnd, 1, CALLS - 1);
      const run = cliProcess(runArgs, emulator.url, env);
      const ready = await until(
        async () => (await progressOf(w, base))[what] >= count || run.child.exitCode !== null,
        120_000,
        `${where}: ${count} calls ${what}`,
      ).catch(() => false);
      const victim = mode === "local" ? run : workers[Math.floor(rnd() * workers.length)]!;
      if (ready && victim.child.exitCode === null) {
        await new Promise((r) => setTimeout(r, Math.floor(rnd() * 30)));
        victim.child.kill("SIGKILL");
        f.killed++;
      } else f.finished_before_kill++;
      if (mode === "local") {
        await run.exited;
        // Run again: it resumes the killed run and finishes the load.
        const again = cliProcess(runArgs, emulator.url, env);
        const end = await again.exited;
        if (end.code !== 0)
          problems.push(`${where}: the run again exited ${end.code}: ${again.output().slice(-800)}`);
      } else {
        const end = await run.exited;
        if (end.code !== 0)
          problems.push(`${where}: the run exited ${end.code}: ${run.output().slice(-800)}`);
        // The killed worker is replaced for the next trial.
        const i = workers.indexOf(victim);
        if (i >= 0 && victim.child.signalCode === "SIGKILL")
          workers[i] = await workerProcess(db, emulator.url, ["--concurrency", "2"]);
      }
      // This load's alerts: exactly the watched keys the emulator changed this week, each change once.
      const after = await allAlerts(db);
      const fresh = after.filter((a) => !seen.has(a.id));
      for (const a of after) seen.add(a.id);
      f.alerts += fresh.length;
      for (const [watch, keys] of [
        ["dig", digestKeys],
        ["each", eachKeys],
      ] as const) {
        const got = sorted(new Set(fresh.filter((a) => a.watch === watch).map((a) => a.key)));
        const want = sorted(changedBetween(keys, weekOf(week - 1), weekOf(week)));
        if (JSON.stringify(got) !== JSON.stringify(want))
          problems.push(
            `${where}: ${watch} alerted ${JSON.stringify(got)}, the emulator changed ${JSON.stringify(want)}; ${await trialState(w, base)}`,
          );
      }
      for (const d of duplicateAlerts(fresh)) problems.push(`${where}: recorded twice: ${d}`);
      f.trials++;
    }
  } finally {
    for (const x of workers) x.child.kill("SIGTERM");
    await Promise.all(workers.map((x) => x.exited));
    await w.close();
  }
  // What the runs' own delivery left (cut by a kill, or past their 1 s): delivered now.
  await deliverAll(db, env);
  const alerts = await allAlerts(db);
  const expected = expectedEventIds(alerts, new Set(["dig"]));
  const byHook = compareIds(
    hook.received.map((r) => r.id),
    expected,
  );
  const byMail = compareIds(
    smtp.messages.map((m) => m.messageId.replace(/^<|@skillsync>$/g, "")),
    expected,
  );
  for (const [to, c] of [
    ["webhook", byHook],
    ["SMTP", byMail],
  ] as const) {
    if (c.missing.length)
      problems.push(`${kind} ${mode}: ${c.missing.length} events never reached the ${to} receiver`);
    if (c.unexpected.length)
      problems.push(`${kind} ${mode}: ${c.unexpected.length} unexpected events at the ${to} receiver`);
    if (c.maxPerId > 2)
      problems.push(`${kind} ${mode}: an event reached the ${to} receiver ${c.maxPerId} times`);
  }
  // Each alert listed in the messages that carry it: its own event, or its load's digest.
  const listed = new Set<string>();
  for (const r of hook.received)
    if (r.kind === "alert") listed.add((r.body.event["alert"] as { id: string }).id);
    else for (const a of r.body.event["alerts"] as { id: string }[]) listed.add(a.id);
  const lost = alerts.filter((a) => !a.suppressed && !listed.has(a.id));
  if (lost.length) problems.push(`${kind} ${mode}: ${lost.length} alert ids in no message received`);
  return {
    problems,
    figures: {
      ...f,
      events: expected.size,
      webhook_distinct: byHook.distinct,
      webhook_received_twice: byHook.receivedTwice,
      webhook_max_per_id: byHook.maxPerId,
      mail_distinct: byMail.distinct,
      mail_received_twice: byMail.receivedTwice,
      mail_max_per_id: byMail.maxPerId,
      alert_ids_lost: lost.length,
    },
  };
}

describe("alerts exactly once under kill -9", () => {
  // Half the trials on a local run, half on workers (Postgres: the queue lives there), side by side
  // (the workers' trials wait on leases); SQLite's local run takes them all without Postgres.
  const plans = unavailable("postgres")
    ? [{ kind: "sqlite" as const, mode: "local" as const, trials: KILL_TRIALS, seed: 4601 }]
    : [
        { kind: "sqlite" as const, mode: "local" as const, trials: Math.ceil(KILL_TRIALS / 2), seed: 4601 },
        {
          kind: "postgres" as const,
          mode: "workers" as const,
          trials: Math.floor(KILL_TRIALS / 2),
          seed: 4602,
        },
      ];
  it(`${KILL_TRIALS} trials (${plans.map((p) => `${p.trials} ${p.mode} on ${p.kind}`).join(", ")}): 0 lost and 0 duplicated alert ids at a webhook and an SMTP server`, async () => {
    const started = Date.now();
    const results = await Promise.all(plans.map((p) => killTrials(p.kind, p.mode, p.trials, p.seed)));
    const seconds = Math.round((Date.now() - started) / 1000);
    plans.forEach((p, i) => {
      const { figures } = results[i]!;
      console.log(`alerts kill trials ${p.kind} ${p.mode} (${seconds} s in all): ${JSON.stringify(figures)}`);
      addFigures(
        "alerts",
        Object.fromEntries(Object.entries(figures).map(([k, v]) => [`kill_${p.mode}_${k}`, v])),
      );
    });
    expect(results.flatMap((r) => r.problems)).toEqual([]);
    plans.forEach((p, i) => {
      const { figures } = results[i]!;
      expect(figures.trials).toBe(p.trials);
      expect(figures.killed).toBeGreaterThanOrEqual(Math.floor(p.trials * 0.7));
      expect(figures.alerts).toBeGreaterThan(0);
      expect(figures.alert_ids_lost).toBe(0);
    });
  }, 420_000);
});

describe("a receiver down for 60 s", () => {
  const kind: Kind = unavailable("postgres") ? "sqlite" : "postgres";
  it(`gets every alert once it is back (webhook and SMTP, ${kind})`, async () => {
    const { emulator } = await emulatorWithClient({ date: weekOf(0) });
    const patents = publishedPatents(300, weekOf(0), 47);
    const { db, load } = await loadedWarehouse(kind, "alerts_down", emulator, patents);
    const hook = await startReceiver();
    const smtp = await startSmtpReceiver();
    const env = { [HOOK_VAR]: hook.url, SKILLSYNC_SMTP_URL: smtp.url, SKILLSYNC_NOTIFY_BACKOFF: "500,4000" };
    await addWatch(
      db,
      "each",
      ["--digest", "none", "--notify", `env:${HOOK_VAR}`, "--email", "ops@example.com"],
      env,
    );
    await hook.down();
    await smtp.down();
    const downAt = Date.now();
    emulator.setDate(weekOf(1));
    await load(env);
    // A deliverer runs throughout, as serve, schedule or a worker does; its tries fail while down.
    const w = await openWarehouse(db);
    const loop = startDelivery(w, [], { env, everyMs: 250, backoff: { baseMs: 500, capMs: 4000 } });
    try {
      const alerts = await allAlerts(db);
      expect(alerts.length).toBeGreaterThan(0);
      const expected = expectedEventIds(alerts, new Set());
      const tries = async () =>
        (await rows<{ attempts: unknown }>(w, "select attempts from skillsync_outbox")).map((r) =>
          Number(r.attempts),
        );
      await until(
        async () => (await tries()).some((n) => n >= 3),
        60_000,
        "failed tries while the receivers are down",
      );
      // The outage lasts 60 s: the receivers come back then, not when the test could tell.
      await new Promise((r) => setTimeout(r, Math.max(0, 60_000 - (Date.now() - downAt))));
      expect(hook.received).toEqual([]);
      expect(smtp.messages).toEqual([]);
      const backAt = Date.now();
      await hook.up();
      await smtp.up();
      await until(
        async () =>
          compareIds(
            hook.received.map((r) => r.id),
            expected,
          ).missing.length === 0 &&
          compareIds(
            smtp.messages.map((m) => m.messageId.replace(/^<|@skillsync>$/g, "")),
            expected,
          ).missing.length === 0,
        60_000,
        "every alert at both receivers",
      );
      const byHook = compareIds(
        hook.received.map((r) => r.id),
        expected,
      );
      const byMail = compareIds(
        smtp.messages.map((m) => m.messageId.replace(/^<|@skillsync>$/g, "")),
        expected,
      );
      expect(byHook).toMatchObject({ unexpected: [], receivedTwice: 0 });
      expect(byMail).toMatchObject({ unexpected: [], receivedTwice: 0 });
      addFigures("alerts", {
        down_alerts: alerts.length,
        down_seconds_to_all_after_back: Math.round((Date.now() - backAt) / 1000),
        down_max_attempts: Math.max(...(await tries())),
      });
    } finally {
      await loop.stop();
      await w.close();
    }
  }, 240_000);
});
