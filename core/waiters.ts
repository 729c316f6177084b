/**
 * Promises that resolve together when `wakeAll` is called: how a worker, a pusher or a loader waits
 * for "something changed" without polling.
 *
 * @example const room = waiters(); await room.wait(); … room.wakeAll();
 */
export function waiters() {
  let list: (() => void)[] = [];
  return {
    wait: (): Promise<void> => new Promise<void>((resume) => list.push(resume)),
    wakeAll(): void {
      const woken = list;
      list = [];
      for (const resume of woken) resume();
    },
  };
}

/**
 * Runs functions one after another per key (in the order they asked), different keys at once.
 *
 * @example const perSheet = oneAtATime(); await perSheet("1AbC…", () => push());
 */
export function oneAtATime() {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const mine = (tails.get(key) ?? Promise.resolve()).catch(() => {}).then(fn);
    const tail = mine.catch(() => {});
    tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
