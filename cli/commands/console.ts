import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { readConfig } from "../../core/env-config.js";
import { printLine } from "../output.js";
import { type ServeFlags, serveCommand, withServeOptions } from "./serve.js";

/** The platform's "open this URL" program. */
function opener(): [string, string[]] {
  if (process.platform === "darwin") return ["open", []];
  if (process.platform === "win32") return ["cmd", ["/c", "start", '""']];
  return ["xdg-open", []];
}

/** Opens the link in the default browser; where none can be opened, the printed link is the way in. */
function openBrowser(link: string): void {
  const [command, args] = opener();
  try {
    const child = spawn(command, [...args, link], { detached: true, stdio: "ignore" });
    child.on("error", () => printLine(`  (could not start ${command}: open the link above yourself)`));
    child.unref();
  } catch {
    printLine(`  (could not start ${command}: open the link above yourself)`);
  }
}

/**
 * `skillsync console`: `serve` on a free local port for one person's laptop, opened in the browser
 * with the one-time link. Without SKILLSYNC_SERVER_SECRET a random secret is made for this process
 * (never shown): the link is then the only way in, and the signed API serves no one else.
 */
export function registerConsoleCommand(program: Command): void {
  const cmd = program
    .command("console")
    .description("start a local server with the console on a free port and open it in the browser")
    .option("--port <n>", "port to listen on (0: any free port)", "0")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--no-open", "print the one-time sign-in link without opening a browser");
  withServeOptions(cmd).action((flags: ServeFlags & { open: boolean }) =>
    serveCommand(flags, {
      secret: readConfig().serverSecret || randomBytes(32).toString("hex"),
      onConsoleLink: flags.open ? openBrowser : undefined,
    }),
  );
}
