import type { RateStore } from "../../connectors/skill-api/rate-gate.js";
import { newRateRow, type RateRow, underDeclared } from "../../connectors/skill-api/rate-row.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { updateRateState } from "../../store/rate-limits.js";
import type { SkillCaller } from "./skill-caller.js";

/** Paces the client with every run and worker on the warehouse that uses the same API key. */
export function shareRateLimit(client: SkillCaller, w: Warehouse): void {
  client.shareRateLimit?.((account, declared) => warehouseRateStore(w, account, declared));
}

/**
 * The account's rate row kept in the warehouse. `declared` is this process's `--rate`: the latest
 * process to change the row says whether a limit is declared.
 */
export function warehouseRateStore(w: Warehouse, account: string, declared: number | null): RateStore {
  return {
    update: (change) =>
      updateRateState(w, account, (stored, now) => {
        const row = underDeclared((stored as RateRow | undefined) ?? newRateRow(declared, now), declared);
        const r = change(row, now);
        return { state: r.row, pace: r.row.rate, out: r };
      }),
  };
}
