import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * `skillsync_responses.body_form`: what the gzipped body holds. `data`, the answer's `data` written
 * out (every row stored before this migration, report parts, a batch's per-item parts); `envelope`,
 * the whole answer exactly as it arrived, its `data` inside: kept as received rather than written
 * out again, which cost a second serialisation of every answer.
 */
export function responseForm(adapter: WarehouseAdapter): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await addColumnIfMissing(
        db,
        adapter,
        "skillsync_responses",
        "body_form",
        "text not null default 'data'",
      );
    },
  };
}
