import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Warehouse } from "../../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../../core/errors.js";
import { readRunPage } from "../../../../engine/publish/console/run-page.js";
import { runRowView } from "../../../../engine/publish/run-and-pipeline-views.js";
import { type CallOutcome, finishCall, insertCall } from "../../../../store/calls.js";
import { countLoad, finishLoad, openLoad } from "../../../../store/loads.js";
import { mailHash, targetHash, writeEvent } from "../../../../store/outbox.js";
import { markDelivered, markFailed } from "../../../../store/outbox-claim.js";
import { readCompiled, readerDb } from "../../../../store/reader-db.js";
import { insertRejects } from "../../../../store/rejects.js";
import { runDetail } from "../../../../store/run-detail.js";
import { getRun, startRun } from "../../../../store/runs.js";
import { unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";
import { freshWarehouse } from "./run-fixtures.js";

const HOOK = "https://hooks.example.com/services/T000/B000/secret-token-123";

async function call(
  w: Warehouse,
  runId: string,
  pipeline: string,
  outcome: CallOutcome,
  error?: [string, string],
) {
  const id = await insertCall(
    w.db,
    { runId, pipeline, skill: "patent-claims", requestHash: `h-${Math.random()}`, credits: 0 },
    "reserved",
  );
  await finishCall(w.db, id, {
    outcome,
    credits: outcome === "succeeded" ? 1.5 : 0,
    loadedRows: outcome === "failed" ? undefined : 2,
    ...(error ? { errorCode: error[0], error: error[1] } : {}),
  });
}

/** A run of two pipelines with every kind of call, rejects, a load and events; and a second run beside it. */
async function seedRun(w: Warehouse): Promise<string> {
  const { id } = await startRun(w, {
    key: "k1",
    pipelines: ["claims", "prices"],
    params: {},
    trigger: "manual",
  });
  const other = await startRun(w, { key: "k2", pipelines: ["claims"], params: {}, trigger: "schedule" });
  for (const o of ["succeeded", "succeeded", "cached", "shared", "ambiguous"] as const)
    await call(w, id, "claims", o);
  await call(w, id, "claims", "failed", ["HTTP_500", "server error"]);
  await call(w, id, "claims", "failed", ["HTTP_500", "server error"]);
  await call(w, id, "prices", "failed", ["QUOTA", "quota exceeded"]);
  await call(w, other.id, "claims", "failed", ["OTHER", "not this run"]);
  const rejects = (n: number, reason: string) =>
    Array.from({ length: n }, (_, i) => ({ table: "claims", reason, record: { n: i }, hash: "h" }));
  await insertRejects(w.db, id, "claims", [...rejects(40, "missing id"), ...rejects(20, "bad date")]);
  await insertRejects(w.db, id, "prices", rejects(3, "bad date"));
  await insertRejects(w.db, other.id, "claims", rejects(5, "other run"));
  const load = await openLoad(w, id, "claims");
  await countLoad(w.db, load, { rowsInserted: 4, versionsNew: 1, unchanged: 2, closed: 0 });
  await finishLoad(w, load);
  const targets = [{ hash: targetHash(HOOK) }, { hash: mailHash("ops@example.com") }];
  for (const kind of ["run.failed", "run.warnings"] as const) {
    await writeEvent(w.db, targets, { kind, runId: id, payload: { runId: id } });
  }
  await writeEvent(w.db, targets, { kind: "run.failed", runId: other.id, payload: {} });
  const rows = await w.db
    .selectFrom("skillsync_outbox")
    .select("id")
    .where("run_id", "=", id)
    .orderBy("id")
    .execute();
  await markDelivered(w, Number(rows[0]!.id), new Date());
  await markFailed(w, Number(rows[1]!.id), "HTTP 502 from the receiver", new Date());
  return id;
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`the console's run page on ${kind}`, () => {
    it("shows what `skillsync runs ID` shows, read as the reader, with rejects, errors and events", async () => {
      const w = await freshWarehouse(kind);
      const id = await seedRun(w);
      const page = await readRunPage(w, id);
      const detail = (await runDetail(w, id))!;
      expect(page?.run).toEqual(runRowView((await getRun(w, id))!));
      expect(page?.pipelines).toEqual(detail.pipelines);
      expect(page?.loads).toEqual(detail.loads);
      expect(page?.warnings).toEqual(detail.warnings);
      expect(page?.pipelines.find((p) => p.pipeline === "claims")).toMatchObject({
        calls: 7,
        paid: 2,
        fromStore: 1,
        fromAnotherRun: 1,
        failed: 2,
        ambiguous: 1,
        credits: 3,
        rejects: 60,
      });
      expect([...(page?.errors ?? [])].sort((a, b) => a.code.localeCompare(b.code))).toEqual([
        { pipeline: "claims", code: "FAILED", message: "", count: 1 },
        { pipeline: "claims", code: "HTTP_500", message: "server error", count: 2 },
        { pipeline: "prices", code: "QUOTA", message: "quota exceeded", count: 1 },
      ]);
      expect(page?.rejects.total).toBe(63);
      expect(page?.rejects.reasons).toEqual([
        { reason: "missing id", count: 40 },
        { reason: "bad date", count: 23 },
      ]);
      expect(page?.rejects.examples).toHaveLength(50);
      expect(page?.rejects.examples[0]).toMatchObject({
        pipeline: "claims",
        table: "claims",
        reason: "missing id",
        record: { n: 0 },
      });

      expect(page?.events.map((e) => [e.kind, e.state, e.attempts])).toEqual([
        ["run.failed", "delivered", 0],
        ["run.failed", "failed", 0],
        ["run.warnings", "pending", 0],
        ["run.warnings", "pending", 0],
      ]);
      expect(page?.events[1]?.error).toBe("HTTP 502 from the receiver");
      const shown = JSON.stringify(page);
      for (const secret of [HOOK, "secret-token", targetHash(HOOK), mailHash("ops@example.com")]) {
        expect(shown).not.toContain(secret);
      }
      expect(await readRunPage(w, "r-none")).toBeUndefined();
    });

    it("reads through the read-only path: another login on Postgres, no write anywhere", async () => {
      const w = await freshWarehouse(kind);
      const who = sql<{ u: string }>`select current_user as u`;
      if (kind === "postgres") {
        const [owner] = (await who.execute(w.db)).rows;
        const [reader] = await readCompiled(w, who.compile(w.db), "test");
        expect(reader?.u).toBeTruthy();
        expect(reader?.u).not.toBe(owner?.u);
      }
      const db = readerDb(w, "test");
      await expect(db.deleteFrom("skillsync_runs").execute()).rejects.toBeInstanceOf(ValidationError);
      await expect(db.transaction().execute(async () => 1)).rejects.toThrow(/read-only path/);
    });
  });
}
