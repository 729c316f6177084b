import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

const TABLE = "skillsync_request_signatures";

/** What is stored for a signature: its SHA-256, so the table never holds a captured value verbatim. */
const signatureKey = (signature: string): string =>
  createHash("sha256").update(signature.toLowerCase(), "utf8").digest("hex");

/**
 * Records a request signature (hex, either case) as used until `expiresAt`, in one statement of its
 * own (committed on its own, outside any transaction): true when it was new, false when a process
 * of this warehouse recorded it before. The primary key decides between two servers claiming the
 * same signature at once: one insert wins.
 */
export async function claimSignature(
  db: Kysely<AnyDB>,
  signature: string,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await db
    .insertInto(TABLE)
    .values({ signature: signatureKey(signature), expires_at: expiresAt.toISOString() })
    .onConflict((oc) => oc.column("signature").doNothing())
    .returning("signature")
    .execute();
  return rows.length === 1;
}

/** Deletes the records that expired before `before`; how many. */
export async function pruneSignatures(db: Kysely<AnyDB>, before: Date): Promise<number> {
  const r = await db.deleteFrom(TABLE).where("expires_at", "<", before.toISOString()).executeTakeFirst();
  return Number(r.numDeletedRows);
}
