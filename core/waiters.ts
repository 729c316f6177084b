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
