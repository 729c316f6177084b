/** One turn of the event loop: what arrives during it joins the group. */
const nextTurn = () => new Promise<void>((resume) => setImmediate(resume));

/** Items committed in groups; see `groupCommit`. */
export interface GroupCommit<T> {
  /** Queues an item; the pump starts if it is not running. */
  add(item: T): void;
  /** Items queued and not yet taken into a group. */
  readonly waiting: number;
  /** A group is being formed or committed. */
  readonly busy: boolean;
  /** Resolves when the groups under way are committed (at once when none is). */
  idle(): Promise<void>;
}

/**
 * Group commit: items that arrive while one group commits form the next group, so a busy process
 * commits once per many items, never once per item. Each group waits one turn of the event loop
 * (items handed in together join it), then `ready`, then takes at most `maxGroup` items in arrival
 * order. `taken` is told whenever items leave the queue (room for more) and when it runs dry;
 * `failed` gets a group whose `commit` threw, and the pump goes on with the next.
 *
 * @example
 * const q = groupCommit<Row>({ maxGroup: 64, commit: (g) => writeAll(g), failed: (g, err) => log(err) });
 * q.add(row);
 */
export function groupCommit<T>(o: {
  commit: (group: T[]) => Promise<void>;
  failed: (group: T[], err: unknown) => void;
  maxGroup: number;
  ready?: (() => Promise<void>) | undefined;
  taken?: (() => void) | undefined;
}): GroupCommit<T> {
  const queue: T[] = [];
  let running: Promise<void> | undefined;

  async function pump(): Promise<void> {
    while (queue.length) {
      // SQLite writes block the event loop: without this pause every group would hold one item.
      await nextTurn();
      if (o.ready) await o.ready();
      const group = queue.splice(0, o.maxGroup);
      o.taken?.();
      try {
        await o.commit(group);
      } catch (err) {
        o.failed(group, err);
      }
    }
    running = undefined;
    o.taken?.();
  }

  return {
    add(item: T): void {
      queue.push(item);
      running ??= pump();
    },
    get waiting() {
      return queue.length;
    },
    get busy() {
      return running !== undefined;
    },
    idle: () => running ?? Promise.resolve(),
  };
}

/** An item asked of a group commit, and how its asker is answered. */
export interface Asked<T, R> {
  item: T;
  resolve(r: R): void;
  reject(err: unknown): void;
}

/**
 * A group commit whose every item is a question with its own answer: `commit` settles each item
 * of its group; when it throws, every item of the group is rejected with the error.
 *
 * @example
 * const { ask } = askInGroups<CallRecord, number>({ maxGroup: 64, commit: reserveAll });
 * const id = await ask(record);
 */
export function askInGroups<T, R>(o: {
  commit: (group: Asked<T, R>[]) => Promise<void>;
  maxGroup: number;
}): { ask(item: T): Promise<R>; idle(): Promise<void> } {
  const q = groupCommit<Asked<T, R>>({
    ...o,
    failed: (group, err) => {
      for (const g of group) g.reject(err);
    },
  });
  return {
    ask: (item) => new Promise<R>((resolve, reject) => q.add({ item, resolve, reject })),
    idle: q.idle,
  };
}
