import { SkillClient } from "../../connectors/skill-api/client.js";
import { DEMO_KEY, type Emulator, type EmulatorOptions, startEmulator } from "../../emulator/index.js";
import { afterTest } from "./after-test.js";

/** The emulator on an ephemeral loopback port and a client for it; both closed after the test. */
export async function emulatorWithClient(
  options: EmulatorOptions = {},
  client: ConstructorParameters<typeof SkillClient>[0] = {},
): Promise<{ emulator: Emulator; client: SkillClient }> {
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1", ...options });
  afterTest(() => emulator.stop());
  const c = new SkillClient({ baseUrl: emulator.url, apiKey: DEMO_KEY, retryBaseDelayMs: 10, ...client });
  afterTest(() => c.close());
  return { emulator, client: c };
}

export { DEMO_KEY };
