/** Polls until `check` returns a truthy value (or throws after `ms`). */
export async function until<T>(
  check: () => Promise<T | undefined | false>,
  ms = 8000,
  what = "condition",
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
