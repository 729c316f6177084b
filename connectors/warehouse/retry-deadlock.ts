import { isDeadlock } from "./driver-errors.js";

/**
 * Runs a transaction again when Postgres aborted it to break a deadlock: runs at once upsert the
 * same rows (answers shared across runs, or each run's own answers to the same requests under
 * --refresh), possibly in different orders. The aborted transaction wrote nothing, so running it
 * again is safe.
 */
export async function retryDeadlock<T>(tx: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tx();
    } catch (err) {
      if (!isDeadlock(err) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
    }
  }
}
