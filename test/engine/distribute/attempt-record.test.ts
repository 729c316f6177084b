import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { attemptRecord } from "../../../engine/distribute/attempt-record.js";
import type { BatchOutcome } from "../../../engine/distribute/batch-job.js";
import { emptySeen } from "../../../engine/run/quality.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { attempts, startAttempt } from "../../../store/run-jobs.js";
import { zeroCounters } from "../../../store/runs.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";

/**
 * A load saves the attempt's counters inside its own transaction; a periodic save runs on another
 * connection with the in-memory counters, which catch up only once that load has committed. CI's
 * worker kill test once carried an attempt's counters 76 rows short: a periodic save taken while a
 * load committed had written the older count back over the load's, and the worker died next.
 */
describe.skipIf(unavailable("postgres"))("an attempt's saved counters", () => {
  it("a save racing a load's transaction never writes the load's counts back to older ones", async () => {
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    try {
      await migrateToLatest(w);
      await startAttempt(w, { jobId: "job-1", workerId: "worker-1", runId: "run-1", pipeline: "p" });
      const counters = { ...zeroCounters(), creditsSpent: 3 };
      const record = attemptRecord(w, "job-1", "worker-1", (complete) => ({
        counters: { ...counters },
        failures: [],
        seen: emptySeen(),
        complete,
        stopReason: undefined,
        ceiling: false,
        authFailure: false,
      }));
      let saving: Promise<void> | undefined;
      await w.transaction(async (tx) => {
        // The load's own save, inside its transaction: 2 calls and 40 rows more than in memory.
        await record.alongLoad(tx.db, { calls: 2, rows: 40, rejected: 1 });
        // Meanwhile a save of the in-memory counters (not caught up yet): it waits for the load.
        counters.creditsSpent = 5;
        saving = record.save("active");
        await new Promise((r) => setImmediate(r));
      });
      await saving;
      const [saved] = await attempts<BatchOutcome>(w, { jobId: "job-1" });
      expect(saved?.outcome?.counters).toMatchObject({
        callsDone: 2,
        rowsWritten: 40,
        rowsRejected: 1,
        // What only the later save knew is kept too.
        creditsSpent: 5,
      });
      record.stop();
    } finally {
      await w.close();
    }
  });
});
