import type { Warehouse } from "../../connectors/warehouse/open.js";
import { deleteWatch } from "../../store/watches.js";
import { watchNamed } from "./watch-test.js";

/** Removes a watch (its alerts stay recorded); a name that is no watch is a ValidationError naming those there are. */
export async function removeWatch(w: Warehouse, name: string, source: string): Promise<void> {
  await watchNamed(w, name, source);
  await deleteWatch(w, name);
}
