import type { Command } from "commander";
import { registerCallCommand } from "./call.js";
import { registerEmulatorCommand } from "./emulator.js";
import { registerToolsCommand } from "./tools.js";

/** Each command lives in its own file and registers itself on the program here. */
export function registerCommands(program: Command): void {
  registerCallCommand(program);
  registerEmulatorCommand(program);
  registerToolsCommand(program);
}
