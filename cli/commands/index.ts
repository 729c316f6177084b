import type { Command } from "commander";
import { registerAlertsCommand } from "./alerts.js";
import { registerBudgetCommand } from "./budget.js";
import { registerCallCommand } from "./call.js";
import { registerChangesCommand } from "./changes.js";
import { registerCompletionCommand } from "./completion.js";
import { registerDemoCommand } from "./demo.js";
import { registerDoctorCommand } from "./doctor.js";
import { registerEmulatorCommand } from "./emulator.js";
import { registerExportCommand } from "./export.js";
import { registerInitCommand } from "./init.js";
import { registerMcpCommand } from "./mcp.js";
import { registerPipelinesCommand } from "./pipelines.js";
import { registerReportsCommand } from "./reports.js";
import { registerRunCommands } from "./run.js";
import { registerRunsCommand } from "./runs.js";
import { registerScheduleCommand } from "./schedule.js";
import { registerServeCommand } from "./serve.js";
import { registerSheetsCommand } from "./sheets.js";
import { registerToolsCommand } from "./tools.js";
import { registerWarehouseCommands } from "./warehouse.js";
import { registerWatchCommand } from "./watch.js";
import { registerWorkerCommands } from "./worker.js";

/** Each command lives in its own file and registers itself on the program here. */
export function registerCommands(program: Command): void {
  registerCallCommand(program);
  registerEmulatorCommand(program);
  registerToolsCommand(program);
  registerInitCommand(program);
  registerRunCommands(program);
  registerRunsCommand(program);
  registerChangesCommand(program);
  registerWatchCommand(program);
  registerAlertsCommand(program);
  registerReportsCommand(program);
  registerWarehouseCommands(program);
  registerExportCommand(program);
  registerBudgetCommand(program);
  registerPipelinesCommand(program);
  registerDemoCommand(program);
  registerDoctorCommand(program);
  registerScheduleCommand(program);
  registerSheetsCommand(program);
  registerServeCommand(program);
  registerMcpCommand(program);
  registerWorkerCommands(program);
  registerCompletionCommand(program);
}
