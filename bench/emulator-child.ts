/** Forked by emulator-process.ts: serves the emulator with the options given as JSON in argv. */
import { startEmulator } from "../emulator/index.js";

const emu = await startEmulator({ port: 0, host: "127.0.0.1", ...JSON.parse(process.argv[2] ?? "{}") });
process.on("message", async (msg: string) => {
  if (msg === "cpu") process.send?.({ cpu: process.cpuUsage() });
  if (msg === "stop") {
    await emu.stop();
    process.exit(0);
  }
});
process.send?.({ port: emu.port });
