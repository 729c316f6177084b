import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * Stored responses kept in pieces: a report part's gzipped body is written to
 * `skillsync_response_chunks` a piece at a time, and its `skillsync_responses` row gets an empty
 * body and the number of pieces in `chunks` (0: the body is in the row, as before). One blob of a
 * whole part was the peak of a large download: the driver copies a parameter it binds.
 */
export function responseChunks(adapter: WarehouseAdapter): Migration {
  const blob = sql.raw(adapter.binaryType);
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_response_chunks")
        .ifNotExists()
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("body", blob, (c) => c.notNull())
        .addPrimaryKeyConstraint("skillsync_response_chunks_pk", ["request_hash", "seq"])
        .execute();
      await addColumnIfMissing(db, adapter, "skillsync_responses", "chunks", "integer not null default 0");
    },
  };
}
