import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, type WarehouseKind } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

// Shared by server-total.test.ts (one server) and server-total.processes.test.ts (two at once).

const KEY = "sk-mcp-test-secret-total-5c1d";

export const keywords = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);

/** An emulator, a fresh warehouse, and how to start `skillsync mcp` on both with a server total. */
export async function setup(kind: WarehouseKind) {
  const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }], latencyMs: 2 });
  const db = freshWarehouseUrl(kind);
  const env = { SKILL_API_KEY: KEY, SKILL_API_BASE_URL: emulator.url };
  const start = (maxCredits: number) =>
    startMcp(["--db", db, "--max-credits", String(maxCredits), "--concurrency", "2"], env);
  return { emulator, start };
}
