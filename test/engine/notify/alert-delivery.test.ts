import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { deliverDue } from "../../../engine/notify/deliver.js";
import { deliverWithin, startDelivery } from "../../../engine/notify/loop.js";
import { watchTargets } from "../../../engine/notify/watch-targets.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { mailHash, targetHash, writeEvent } from "../../../store/outbox.js";
import { outboxRows } from "../../../store/outbox-claim.js";
import { startReceiver } from "../../helpers/notify-receiver.js";
import { startSmtpReceiver } from "../../helpers/smtp-receiver.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

/**
 * The most one delivery pass may take, as a run's end bounds it (it returns as soon as the pass is
 * done, not after this long): not a wait; the test waits for the receiver with `until`.
 */
const PASS_BOUND_MS = 5_000;

const warehouses: Warehouse[] = [];
const loops: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const l of loops.splice(0)) await l.stop();
  for (const w of warehouses.splice(0)) await w.close();
});

async function open(kind: (typeof WAREHOUSE_KINDS)[number]): Promise<Warehouse> {
  const w = await openWarehouse(freshWarehouseUrl(kind));
  warehouses.push(w);
  await migrateToLatest(w);
  return w;
}

const ADDRESS = "Ops@Example.com";
const HOOK_VAR = "SKILLSYNC_TEST_ALERT_HOOK";
/** The outbox targets a watch with `--notify env:HOOK_VAR --email ADDRESS` writes its alerts for. */
const WATCH_TARGETS = [{ hash: targetHash(`env:${HOOK_VAR}`) }, { hash: mailHash(ADDRESS) }];
const WATCHES = { urlRefs: [`env:${HOOK_VAR}`], emails: [ADDRESS.toLowerCase()] };

const view = (key: string, old: string, now: string) => ({
  id: `al_${key}`,
  key,
  column: "legal_status",
  change: "changed",
  old,
  new: now,
  loadId: 12,
  changedAt: "2026-11-29T06:00:00.000Z",
});

async function writeAlerts(w: Warehouse): Promise<void> {
  await writeEvent(w.db, WATCH_TARGETS, {
    id: "ev_alert_one",
    kind: "alert",
    payload: {
      watch: "lapsed",
      table: "patent_legal_status",
      alert: view("US1234567B2", "Active", "Inactive"),
    },
  });
  await writeEvent(w.db, WATCH_TARGETS, {
    id: "ev_alert_digest",
    kind: "alert.digest",
    payload: {
      watch: "lapsed",
      table: "patent_legal_status",
      digest: "load",
      loadId: 12,
      runId: null,
      day: null,
      count: 5,
      alerts: [view("US1111111B2", "Active", "Inactive"), view("US2222222B2", "Pending", "Active")],
      more: 3,
    },
  });
}

const ONE =
  "skillsync: watch lapsed: patent_legal_status US1234567B2 legal_status Active → Inactive (load 12)";
const DIGEST = [
  "skillsync: watch lapsed: 5 alerts in patent_legal_status (load 12)",
  "US1111111B2 legal_status Active → Inactive",
  "US2222222B2 legal_status Pending → Active",
  "… and 3 more",
].join("\n");

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`alerts by e-mail and webhook (${kind})`, () => {
    it("an alert and a digest reach an address (SMTP) and an env:NAME webhook once each, with their texts", async () => {
      const w = await open(kind);
      const smtp = await startSmtpReceiver();
      const hook = await startReceiver();
      await writeAlerts(w);
      const env = {
        [HOOK_VAR]: hook.url,
        SKILLSYNC_SMTP_URL: smtp.url,
        SKILLSYNC_SMTP_FROM: "alerts@skillsync.test",
      };
      const targets = watchTargets(WATCHES, env);
      expect(await deliverDue(w, targets)).toEqual({ delivered: 4, failed: 0 });
      expect(await deliverDue(w, targets)).toEqual({ delivered: 0, failed: 0 });

      expect(smtp.messages.map((m) => m.messageId)).toEqual([
        "<ev_alert_one@skillsync>",
        "<ev_alert_digest@skillsync>",
      ]);
      const [one, digest] = smtp.messages;
      expect(one).toMatchObject({
        from: "alerts@skillsync.test",
        to: ["ops@example.com"],
        secure: true,
        subject: ONE,
      });
      expect(one!.text.trim()).toBe(ONE);
      expect(one!.headers.get("x-skillsync-event-kind")).toBe("alert");
      expect(digest!.subject).toBe(DIGEST.split("\n")[0]);
      expect(digest!.text.trim()).toBe(DIGEST);
      expect(digest!.headers.get("x-skillsync-event-id")).toBe("ev_alert_digest");

      expect(hook.received.map((r) => [r.id, r.kind, r.body.text])).toEqual([
        ["ev_alert_one", "alert", ONE],
        ["ev_alert_digest", "alert.digest", DIGEST],
      ]);
      expect(hook.received[0]!.body.event["alert"]).toMatchObject({ id: "al_US1234567B2", loadId: 12 });
      expect(hook.received[1]!.body.event).toMatchObject({ count: 5, more: 3, digest: "load" });
      // Neither the SMTP password nor the webhook's URL in the outbox.
      const stored = JSON.stringify(await outboxRows(w));
      expect(stored).not.toContain(smtp.password);
      expect(stored).not.toContain(hook.url);
    }, 60_000);

    it("a mail server that is down: the failed try is kept and retried; the mail goes once when it is back", async () => {
      const w = await open(kind);
      const smtp = await startSmtpReceiver();
      await smtp.down();
      await writeAlerts(w);
      const env = { SKILLSYNC_SMTP_URL: smtp.url };
      // A process with no --notify of its own: it delivers the watches' targets, read at each pass.
      const loop = startDelivery(w, [], {
        everyMs: 100,
        backoff: { baseMs: 100, capMs: 300 },
        watches: async () => WATCHES,
        env,
      });
      loops.push(loop);
      const mailRows = async () => (await outboxRows(w)).filter((r) => r["target"] === mailHash(ADDRESS));
      await until(async () => (await mailRows()).some((r) => Number(r["attempts"]) >= 2), 20_000, "retries");
      const failed = (await mailRows()).find((r) => Number(r["attempts"]) >= 2)!;
      expect(failed["last_error"]).toBe("ECONNREFUSED");
      expect(failed["delivered_at"]).toBeNull();
      await smtp.up();
      await until(async () => smtp.messages.length === 2, 20_000, "both mails");
      await until(
        async () => (await mailRows()).every((r) => r["delivered_at"] !== null),
        10_000,
        "recorded",
      );
      expect([...smtp.counts().values()]).toEqual([1, 1]);
      // The webhook's variable is not set here: its events wait for a process that has it.
      const hookRows = (await outboxRows(w)).filter((r) => r["target"] === targetHash(`env:${HOOK_VAR}`));
      expect(hookRows.map((r) => [r["attempts"], r["delivered_at"]])).toEqual([
        [0, null],
        [0, null],
      ]);
    }, 60_000);

    it("a run without --notify delivers the watches' alerts at its end; with no watch target it sends nothing", async () => {
      const w = await open(kind);
      const hook = await startReceiver();
      await writeAlerts(w);
      await deliverWithin(w, [], PASS_BOUND_MS, {
        watches: async () => ({ urlRefs: [], emails: [] }),
        env: {},
      });
      expect((await outboxRows(w)).every((r) => Number(r["attempts"]) === 0)).toBe(true);
      // A run's delivery is bounded (a POST cut on a busy machine waits for the next one): asked
      // again, as the next run would, until the receiver has both, within a generous deadline.
      const quick = { baseMs: 50, capMs: 200 };
      const reach = { watches: async () => WATCHES, env: { [HOOK_VAR]: hook.url }, backoff: quick };
      await until(
        async () => {
          await deliverWithin(w, [], PASS_BOUND_MS, reach);
          return new Set(hook.received.map((r) => r.id)).size >= 2;
        },
        60_000,
        "both events at the receiver",
      );
      expect([...new Set(hook.received.map((r) => r.id))]).toEqual(["ev_alert_one", "ev_alert_digest"]);
    }, 60_000);
  });
}
