/**
 * The emulator in a child process, so its CPU and memory are not the loader's: the benchmark's
 * figures for skillsync count only skillsync's process.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { EmulatorOptions } from "../emulator/index.js";

export interface EmulatorProcess {
  url: string;
  /** The child's CPU time so far (user + system), in ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

type Message = { port: number } | { cpu: NodeJS.CpuUsage };

/** @example const emu = await startEmulatorProcess({ latencyMs: 100 }); … await emu.stop(); */
export async function startEmulatorProcess(options: EmulatorOptions = {}): Promise<EmulatorProcess> {
  // Compiled (the memory figures run from JavaScript, as the CLI does) or from source through tsx.
  const compiled = import.meta.url.endsWith(".js");
  const script = fileURLToPath(new URL(`./emulator-child.${compiled ? "js" : "ts"}`, import.meta.url));
  const child = fork(script, [JSON.stringify(options)], {
    execArgv: compiled ? [] : ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });

  const next = () =>
    new Promise<Message>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`emulator process exited (${code})`));
      child.once("exit", onExit);
      child.once("message", (m: Message) => {
        child.off("exit", onExit);
        resolve(m);
      });
    });
  const { port } = (await next()) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async cpuMs() {
      child.send("cpu");
      const { cpu } = (await next()) as { cpu: NodeJS.CpuUsage };
      return (cpu.user + cpu.system) / 1000;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send("stop");
      await exited;
    },
  };
}
