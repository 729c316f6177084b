import type { Command } from "commander";

/** Each command lives in its own file and registers itself on the program here. */
export function registerCommands(_program: Command): void {}
