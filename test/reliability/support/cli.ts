import { main } from "../../../cli/main.js";
import { SECRETS } from "./secrets.js";
import { keepOutput } from "./suite.js";

const maskSecrets = (text: string) =>
  Object.values(SECRETS).reduce((t, secret) => t.split(secret).join("<secret given as input>"), text);

/**
 * Runs the CLI's main() in this process with the given environment, capturing stdout, stderr and
 * the exit code (also kept for the secret scan).
 */
export async function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  let out = "";
  let err = "";
  const write = process.stdout.write;
  const writeErr = process.stderr.write;
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
    // The command line is the test's input (it may carry a secret on purpose); what the tool printed is kept whole.
    keepOutput("cli", `$ skillsync ${maskSecrets(args.join(" ")).slice(0, 300)}\n${out}${err}`);
  }
}

/** The environment a CLI case gets: the suite's emulator and key, nothing else configured. */
export function cliEnv(baseUrl: string, apiKey: string): Record<string, string | undefined> {
  return {
    SKILL_API_BASE_URL: baseUrl,
    SKILL_API_KEY: apiKey,
    DATABASE_URL: undefined,
    SKILLSYNC_SERVER_SECRET: undefined,
    GOOGLE_APPLICATION_CREDENTIALS: undefined,
    SKILLSYNC_SHEETS_ACCESS_TOKEN: undefined,
    SKILLSYNC_SHEETS_API_URL: undefined,
  };
}
