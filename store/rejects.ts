import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

const now = () => new Date().toISOString();

export interface RejectToStore {
  table: string;
  reason: string;
  record: unknown;
  hash: string;
}

/** Rejected records, each with the request hash of the answer it came in. */
export async function insertRejects(
  db: Kysely<AnyDB>,
  runId: string,
  pipeline: string,
  rejects: RejectToStore[],
): Promise<void> {
  if (!rejects.length) return;
  const at = now();
  await db
    .insertInto("skillsync_rejects")
    .values(
      rejects.map((r) => ({
        run_id: runId,
        pipeline,
        table_name: r.table,
        request_hash: r.hash,
        reason: r.reason,
        record: JSON.stringify(r.record ?? null),
        created_at: at,
      })),
    )
    .execute();
}
