import type { Amount, WatchSpec } from "../../../schema/watch.js";

/** A watch as the load evaluates it: its name and settings. */
export interface Watcher {
  name: string;
  spec: WatchSpec;
}

/**
 * One change to a key, as the `<table>_changes` view lists it: `added` (the key's first version),
 * `changed` (a column, or a child table's row count, old → new as text), or `appeared` (a child
 * row that the previous version did not have; `column` is the child table).
 */
export interface KeyChange {
  key: string;
  change: "added" | "changed" | "appeared";
  column: string | null;
  old: string | null;
  new: string | null;
}

/** What a watch says about one change: an alert, or nothing. */
export interface Match {
  change: "changed" | "appeared";
  column: string | null;
  old: string | null;
  new: string | null;
}

/**
 * Whether a watch alerts on a change. A key's first version or a new child row alerts only with
 * `appeared`; a changed value alerts when it is in the watched columns and meets every condition
 * given (`to`, `from`, `fell_by`, `rose_by`); with none given, any change does — unless the watch
 * asks for `appeared` alone.
 */
export function matchChange(spec: WatchSpec, c: KeyChange): Match | null {
  const when = spec.when;
  if (c.change === "added")
    return when.appeared ? { change: "appeared", column: null, old: null, new: null } : null;
  // Called for every changed key and condition of a load (issue 46's bench): no allocation until a match.
  const watched = !spec.columns || (c.column !== null && spec.columns.includes(c.column));
  if (c.change === "appeared")
    return when.appeared && watched ? { change: "appeared", column: c.column, old: null, new: c.new } : null;
  if (!watched) return null;
  const conditions =
    when.to !== undefined ||
    when.from !== undefined ||
    when.fellBy !== undefined ||
    when.roseBy !== undefined;
  if (!conditions && when.appeared) return null;
  if (when.to !== undefined && c.new !== when.to) return null;
  if (when.from !== undefined && c.old !== when.from) return null;
  if (when.fellBy && !moved(c.old, c.new, when.fellBy, -1)) return null;
  if (when.roseBy && !moved(c.old, c.new, when.roseBy, 1)) return null;
  return { change: "changed", column: c.column, old: c.old, new: c.new };
}

/** Whether a number fell (`sign` -1) or rose (+1) by at least the amount; text that is no number never did. */
function moved(oldText: string | null, newText: string | null, by: Amount, sign: 1 | -1): boolean {
  if (oldText === null || newText === null || oldText.trim() === "" || newText.trim() === "") return false;
  const before = Number(oldText);
  const after = Number(newText);
  if (!Number.isFinite(before) || !Number.isFinite(after)) return false;
  const delta = (after - before) * sign;
  if (delta <= 0) return false;
  if (!by.percent) return delta >= by.value - 1e-9;
  // A percentage of nothing is undefined: a price from 0 never "rose by 10 %".
  if (before === 0) return false;
  return (delta / Math.abs(before)) * 100 >= by.value - 1e-9;
}
