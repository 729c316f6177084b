import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { deliverDue } from "../../../engine/notify/deliver.js";
import { watchTargets } from "../../../engine/notify/watch-targets.js";
import { type Alert, listAlerts } from "../../../store/alerts.js";
import { eventIdOf } from "../../../store/outbox.js";
import { outboxRows } from "../../../store/outbox-claim.js";
import { listWatchNotify } from "../../../store/watches.js";
import { afterTest } from "../../helpers/after-test.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { changedBetween, publishedPatents } from "../../helpers/legal-status.js";
import { type Received, startReceiver } from "../../helpers/notify-receiver.js";
import { type ReceivedMail, startSmtpReceiver } from "../../helpers/smtp-receiver.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { tempDir } from "../../scheduler/fixtures.js";

const [D0, D1, D2] = ["2026-11-08", "2026-11-15", "2026-11-22"];

/**
 * Patents chosen by what the emulator does to them over two weeks: changed in both weeks (a
 * cooldown holds the second back), only in the first, only in the second, in neither.
 */
function chosenPatents() {
  // Keys changed in both weeks are rare (about 1 in 400): this seed has 3 among its first 400.
  const pool = publishedPatents(400, D0!, 35);
  const week1 = new Set(changedBetween(pool, D0!, D1!));
  const week2 = new Set(changedBetween(pool, D1!, D2!));
  const pick = (f: (k: string) => boolean, n: number) => pool.filter(f).slice(0, n);
  // Few keys: each alert of a `digest: none` watch is a mail of its own (an SMTP conversation).
  const both = pick((k) => week1.has(k) && week2.has(k), 2);
  const first = pick((k) => week1.has(k) && !week2.has(k), 2);
  const second = pick((k) => !week1.has(k) && week2.has(k), 2);
  const neither = pick((k) => !week1.has(k) && !week2.has(k), 2);
  expect(both).toHaveLength(2);
  return { both, first, second, neither, all: [...both, ...first, ...second, ...neither] };
}

/** Each id once, as a receiver that deduplicates on the event id keeps it. */
function byId<T>(items: readonly T[], id: (t: T) => string): Map<string, T> {
  return new Map(items.map((t) => [id(t), t]));
}

const BACKOFF = { baseMs: 100, capMs: 400 };
const ADDRESS = { dig: "digest@example.com", each: "each@example.com", cool: "cool@example.com" };

describe.each(WAREHOUSE_KINDS)("alert messages on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("digest load: one message per load with its alerts; none: one per alert; cooldown: no repeat; no match: nothing", async () => {
      const { emulator } = await emulatorWithClient({ date: D0 });
      const db = freshWarehouseUrl(kind);
      const p = chosenPatents();
      const dir = tempDir();
      const list = join(dir, "patents.txt");
      writeFileSync(list, `${p.all.join("\n")}\n`);
      const hooks = { dig: await startReceiver(), each: await startReceiver(), cool: await startReceiver() };
      const smtp = await startSmtpReceiver();
      const env = {
        SKILL_API_BASE_URL: emulator.url,
        SKILL_API_KEY: DEMO_KEY,
        E_HOOK_DIG: hooks.dig.url,
        E_HOOK_EACH: hooks.each.url,
        E_HOOK_COOL: hooks.cool.url,
        SKILLSYNC_SMTP_URL: smtp.url,
        SKILLSYNC_NOTIFY_BACKOFF: `${BACKOFF.baseMs},${BACKOFF.capMs}`,
      };
      const load = async () => {
        const r = await cli(
          ["run", "patent-legal-status", "--param", `patent=@${list}`, "--refresh", "--db", db, "--json"],
          env,
        );
        expect(r.code, r.err).toBe(0);
      };
      const watch = async (name: keyof typeof hooks, ...flags: string[]) => {
        const r = await cli(
          ["watch", "add", name, "--table", "patent_legal_status", "--keys", `@${list}`, "--db", db].concat([
            "--notify",
            `env:E_HOOK_${name.toUpperCase()}`,
            "--email",
            ADDRESS[name],
            ...flags,
          ]),
          env,
        );
        expect(r.code, r.err).toBe(0);
      };
      await load();
      await watch("dig", "--digest", "load");
      await watch("each", "--digest", "none");
      await watch("cool", "--digest", "none", "--cooldown", "30d");

      const w = await openWarehouse(db);
      afterTest(() => w.close());
      /**
       * What `run` left undelivered at its end (it delivers for 1 s at most, and what it cut is due
       * again after a short backoff), delivered now: until every event of the outbox is.
       */
      const deliverRest = () =>
        until(
          async () => {
            await deliverDue(w, watchTargets(await listWatchNotify(w), env), { backoff: BACKOFF });
            return (await outboxRows(w)).every((r) => r["delivered_at"] !== null);
          },
          60_000,
          "every alert message delivered",
        );

      emulator.setDate(D1!);
      await load();
      await deliverRest();
      const load1 = await loadAlerts(w);
      expect(new Set(load1.all.filter((a) => a.watch === "dig").map((a) => a.key))).toEqual(
        new Set([...p.both, ...p.first]),
      );
      checkMessages(load1, { hooks, mails: smtp.messages });

      emulator.setDate(D2!);
      await load();
      await deliverRest();
      const load2 = await loadAlerts(w);
      expect(load2.loadId).toBeGreaterThan(load1.loadId);
      expect(new Set(load2.all.filter((a) => a.watch === "dig").map((a) => a.key))).toEqual(
        new Set([...p.both, ...p.second]),
      );
      // The cooldown: keys that alerted a week ago are recorded as suppressed, not sent, not listed.
      const cool = load2.all.filter((a) => a.watch === "cool");
      expect(new Set(cool.filter((a) => a.suppressed).map((a) => a.key))).toEqual(new Set(p.both));
      expect(new Set(cool.filter((a) => !a.suppressed).map((a) => a.key))).toEqual(new Set(p.second));
      const listed = await cli([
        "alerts",
        "--watch",
        "cool",
        "--since",
        String(load1.loadId),
        "--db",
        db,
        "--json",
      ]);
      expect(new Set((JSON.parse(listed.out) as Alert[]).map((a) => a.key))).toEqual(new Set(p.second));
      checkMessages(load2, { hooks, mails: smtp.messages });
      // Every message of the cooldown watch about those keys is of the week before.
      const coolSent = [...byId(hooks.cool.received, (r) => r.id).values()].map(
        (r) => r.body.event["alert"] as { key: string; loadId: number },
      );
      expect(coolSent.filter((a) => p.both.includes(a.key)).length).toBeGreaterThan(0);
      for (const a of coolSent.filter((x) => p.both.includes(x.key))) expect(a.loadId).toBe(load1.loadId);

      // An unchanged reload: no alert, nothing sent.
      const sent = { hooks: Object.values(hooks).map((h) => h.received.length), mails: smtp.messages.length };
      await load();
      await deliverRest();
      expect(
        (await listAlerts(w.db, { withSuppressed: true })).filter((a) => a.loadId > load2.loadId),
      ).toEqual([]);
      expect({
        hooks: Object.values(hooks).map((h) => h.received.length),
        mails: smtp.messages.length,
      }).toEqual(sent);
    }, 120_000);
  });
});

/** The alerts of the latest load that recorded any, suppressed ones included. */
async function loadAlerts(w: Warehouse): Promise<{ loadId: number; all: Alert[] }> {
  const all = await listAlerts(w.db, { withSuppressed: true });
  const loadId = Math.max(...all.map((a) => a.loadId));
  return { loadId, all: all.filter((a) => a.loadId === loadId) };
}

/**
 * What the receivers got for one load, against the alerts it recorded: for `dig` one webhook
 * message and one e-mail listing exactly them; for `each` and `cool` one message per alert sent
 * (not suppressed), its id the alert's.
 */
function checkMessages(
  load: { loadId: number; all: Alert[] },
  r: { hooks: Record<keyof typeof ADDRESS, { received: Received[] }>; mails: ReceivedMail[] },
): void {
  const of = (watch: string) => load.all.filter((a) => a.watch === watch && !a.suppressed);
  const hookDigests = [...byId(r.hooks.dig.received, (m) => m.id).values()].filter(
    (m) => m.body.event["loadId"] === load.loadId,
  );
  expect(hookDigests).toHaveLength(1);
  const digest = hookDigests[0]!;
  expect(digest.id).toBe(eventIdOf("alert.digest", "dig", String(load.loadId)));
  expect(digest.kind).toBe("alert.digest");
  const listed = digest.body.event["alerts"] as { id: string; key: string }[];
  expect(digest.body.event["count"]).toBe(of("dig").length);
  expect(new Set(listed.map((a) => a.id))).toEqual(new Set(of("dig").map((a) => a.id)));
  const mailDigests = [...byId(r.mails, (m) => m.messageId).values()].filter(
    (m) => m.to.includes(ADDRESS.dig) && m.subject.includes(`(load ${load.loadId})`),
  );
  expect(mailDigests).toHaveLength(1);
  expect(mailDigests[0]!.messageId).toBe(`<${digest.id}@skillsync>`);
  expect(mailDigests[0]!.subject).toContain(`${of("dig").length} alert`);
  for (const a of of("dig")) expect(mailDigests[0]!.text).toContain(a.key);

  for (const watch of ["each", "cool"] as const) {
    const sent = [...byId(r.hooks[watch].received, (m) => m.id).values()].filter(
      (m) => (m.body.event["alert"] as { loadId: number }).loadId === load.loadId,
    );
    const alerts = of(watch);
    expect(new Set(sent.map((m) => (m.body.event["alert"] as { id: string }).id))).toEqual(
      new Set(alerts.map((a) => a.id)),
    );
    expect(new Set(sent.map((m) => m.id))).toEqual(new Set(alerts.map((a) => eventIdOf("alert", a.id))));
    expect(sent.every((m) => m.kind === "alert")).toBe(true);
    const mails = [...byId(r.mails, (m) => m.messageId).values()].filter(
      (m) => m.to.includes(ADDRESS[watch]) && m.text.includes(`(load ${load.loadId})`),
    );
    expect(new Set(mails.map((m) => m.messageId))).toEqual(
      new Set(alerts.map((a) => `<${eventIdOf("alert", a.id)}@skillsync>`)),
    );
  }
}
