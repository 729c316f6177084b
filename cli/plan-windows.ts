import type { PipelinePlan } from "../engine/run/plan.js";
import { printLine, printTable } from "./output.js";

const ASK = { new: "ask", again: "ask again (lookback)", done: "done: skipped" } as const;

/** Every window of each windowed pipeline in a plan: its days, what a run does with it, its calls and credits. */
export function printWindowPlans(pipelines: PipelinePlan[]): void {
  for (const p of pipelines) {
    if (!p.windows) continue;
    const asked = p.windows.filter((w) => w.ask !== "done").length;
    printLine("");
    printLine(
      `${p.pipeline}: ${p.windows.length} window(s), ${asked} to ask, ${p.windows.length - asked} done`,
    );
    printTable(
      p.windows.map((w) => ({
        window: w.start === w.end ? w.start : `${w.start}..${w.end}`,
        run: ASK[w.ask],
        calls: w.calls,
        from_store: w.fromStore,
        credits: w.credits,
      })),
    );
  }
}
