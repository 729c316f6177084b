// Every line a test file's process prints (the tool's progress, warnings, errors) is also kept for
// the final secret scan.
import { appendFileSync } from "node:fs";
import { suitePath } from "./support/suite.js";

const log = suitePath("logs", `process-${process.pid}.log`);
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    try {
      appendFileSync(log, typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array));
    } catch {}
    return write(chunk, ...rest);
  }) as typeof stream.write;
}
