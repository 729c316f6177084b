import { a1Range } from "./a1.js";
import type { SheetsApi } from "./api.js";
import type { Chunk } from "./encode.js";

/**
 * Writes chunks of rows at fixed places from `firstRow` (1-based), column A on. Each write is
 * `values.update` on an explicit range, so a retried write lands on the same cells again.
 */
export async function writeChunks(
  api: SheetsApi,
  spreadsheet: string,
  tab: string,
  chunks: readonly Chunk[],
  firstRow: number,
  width: number,
): Promise<void> {
  for (const c of chunks) {
    const top = firstRow + c.first;
    await api.update(spreadsheet, a1Range(tab, top, 1, top + c.rows - 1, width), c.values);
  }
}
