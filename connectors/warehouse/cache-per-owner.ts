/**
 * Values cached per owner object (a connection, a dialect) and text key, dropped with their owner.
 * An owner's entries are cleared when they reach `limit`: keys are a few shapes, the bound is a
 * safety net against ever-new ones (inferred columns make new table shapes now and then).
 *
 * @example
 * const statements = cachePerOwner<SQLite.Database, SQLite.Statement>();
 * const stmt = statements(database, text, () => database.prepare(text));
 */
export function cachePerOwner<O extends object, T>(limit = 256): (owner: O, key: string, make: () => T) => T {
  const byOwner = new WeakMap<O, Map<string, T>>();
  return (owner, key, make) => {
    let byKey = byOwner.get(owner);
    if (!byKey) {
      byKey = new Map();
      byOwner.set(owner, byKey);
    }
    let value = byKey.get(key);
    if (value === undefined) {
      if (byKey.size >= limit) byKey.clear();
      value = make();
      byKey.set(key, value);
    }
    return value;
  };
}
