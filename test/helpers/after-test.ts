/**
 * What to undo after the current test — servers, processes, temporary warehouses — run by the one
 * `afterEach` that test/setup.ts registers before every test file. The main suite runs its files
 * in one module graph per worker (vitest `isolate: false`), where a helper's own module-level
 * `afterEach` would be registered once, for the first file that imports it, and never again.
 */
interface Undo {
  run: () => unknown;
  /** Left in place when the test failed, to be inspected (a warehouse). */
  keepOnFailure: boolean;
}

const pending: Undo[] = [];

/** Registers `run` to undo after the current test; undone in reverse order (a server before its warehouse). */
export function afterTest(run: () => unknown, o: { keepOnFailure?: boolean } = {}): void {
  pending.push({ run, keepOnFailure: o.keepOnFailure ?? false });
}

/** Undoes what the test registered; a failure to undo one thing does not stop the rest. */
export async function undoAfterTest(testFailed: boolean): Promise<void> {
  for (const u of pending.splice(0).reverse()) {
    if (testFailed && u.keepOnFailure) continue;
    try {
      await u.run();
    } catch {
      // Already closed or gone: nothing left to undo.
    }
  }
}
