import { cli as runCli } from "../../helpers/cli.js";
import { SECRETS } from "./secrets.js";
import { keepOutput } from "./suite.js";

const maskSecrets = (text: string) =>
  Object.values(SECRETS).reduce((t, secret) => t.split(secret).join("<secret given as input>"), text);

/**
 * Runs the CLI's main() in this process with the given environment, capturing stdout, stderr and
 * the exit code (also kept for the secret scan).
 */
export function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  // The command line is the test's input (it may carry a secret on purpose); what the tool printed is kept whole.
  return runCli(args, env, (out, err) =>
    keepOutput("cli", `$ skillsync ${maskSecrets(args.join(" ")).slice(0, 300)}\n${out}${err}`),
  );
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
