import { READ_LIMITS, readBoundedText } from "../../core/bounded-read.js";
import { ValidationError } from "../../core/errors.js";
import { type WatchFile, watchFileSchema } from "../../schema/watch.js";
import { parseYamlWith } from "../define/yaml-document.js";

/** `watches/NAME.yaml`, where `watch add NAME` looks when no `--table` is given. */
export const watchFilePath = (name: string): string => `watches/${name}.yaml`;

/**
 * Reads and checks a watch file: its members are `watch add`'s flags (docs/alerts.md). Problems
 * are reported with their line and a did-you-mean, as a ValidationError (exit 2).
 */
export function readWatchFile(path: string): WatchFile {
  let text: string;
  try {
    text = readBoundedText(path, {
      maxBytes: READ_LIMITS.yamlFileBytes,
      what: `watch file ${path}`,
      instead: "put a long list of keys in a file of its own (keys: { file: … })",
    });
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "does not exist: give --table (and the other flags) or write the file"
        : `cannot be read (${code ?? (err as Error).message})`;
    throw new ValidationError(`watch file ${path}`, [{ path: [], message: `${path} ${why}` }]);
  }
  return parseYamlWith(text, `watch file ${path}`, watchFileSchema);
}
