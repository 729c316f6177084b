/** Every non-empty line of a log as an object; a line that is not JSON throws, quoting the line. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${l}`);
      }
    });
}
