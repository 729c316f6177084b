import type { Compilable, CompiledQuery, Kysely, QueryResult } from "kysely";
import { cachePerOwner } from "./cache-per-owner.js";
import type { AnyDB } from "./open.js";

interface Template {
  compiled: CompiledQuery;
  /** Each parameter of the compiled text: the index of the value it takes, or a constant. */
  slots: (number | { constant: unknown })[];
}

// Per dialect (the adapter, shared by a Kysely instance and its transactions), then per shape.
const templates = cachePerOwner<object, Template>();
const SLOT = "\u0000skillsync-slot:";

/**
 * Runs a query that Kysely builds and compiles once per dialect and `shape`, again with new
 * values: building a 16-row insert costs more than SQLite takes to run it (the runner's ledger
 * statements, ~40 µs a call). `build` puts `slot(i)` wherever `values[i]` goes; everything else
 * in it must follow from `shape` alone.
 *
 * @example
 * await runReused(db, `calls-done:${ids.length}`, ids, (slot) =>
 *   db.updateTable("skillsync_calls").set({ outcome: "succeeded" }).where("id", "in", ids.map((_, i) => slot(i))));
 */
export async function runReused<R>(
  db: Kysely<AnyDB>,
  shape: string,
  values: readonly unknown[],
  build: (slot: (i: number) => unknown) => Compilable<R>,
): Promise<QueryResult<R>> {
  const t = templates(db.getExecutor().adapter, shape, () => {
    const compiled = build((i) => `${SLOT}${i}`).compile();
    const slots = compiled.parameters.map((p) =>
      typeof p === "string" && p.startsWith(SLOT) ? Number(p.slice(SLOT.length)) : { constant: p },
    );
    return { compiled, slots };
  });
  const parameters = t.slots.map((s) => (typeof s === "number" ? values[s] : s.constant));
  return db.executeQuery<R>({ ...(t.compiled as CompiledQuery<R>), parameters });
}
