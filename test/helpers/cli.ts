import { main } from "../../cli/main.js";

/**
 * Runs the CLI in-process with the given environment, capturing stdout, stderr and the exit code;
 * `onDone` sees what was printed (the reliability suite keeps it for its secret scan).
 */
export async function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
  onDone?: (out: string, err: string) => void,
): Promise<{ code: number; out: string; err: string }> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  let out = "";
  let err = "";
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  const exitBefore = process.exitCode;
  process.exitCode = undefined;
  try {
    const code = await main(args);
    return { code, out, err };
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
    process.exitCode = exitBefore;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    onDone?.(out, err);
  }
}
