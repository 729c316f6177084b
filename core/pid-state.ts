/**
 * Whether a process with this pid runs on this host: `alive` (ours to signal), `gone`, or
 * `foreign` (it exists but belongs to another user: EPERM). Callers choose what `foreign` means: a
 * pid taken by another user's process is not the run that recorded it, but a folder it may own
 * is better left alone.
 *
 * @example if (pidState(row.pid) === "alive") … // the recorded owner still runs
 */
export function pidState(pid: number): "alive" | "gone" | "foreign" {
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM" ? "foreign" : "gone";
  }
}
