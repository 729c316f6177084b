import { writeLoadDigests } from "../../store/alert-events.js";
import { finishLoad, openLoad } from "../../store/loads.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { alertOnViews } from "../load/watches/view-watches.js";
import type { RunSession } from "./session.js";

// One lookup per pipeline and session: a windowed pipeline runs its calls once per window.
const opened = new WeakMap<RunSession, Map<string, Promise<number>>>();

/** The id of this run's load of a pipeline (skillsync_loads), the same in every process of the run. */
export function loadOf(s: RunSession, pipeline: string): Promise<number> {
  let bySession = opened.get(s);
  if (!bySession) {
    bySession = new Map();
    opened.set(s, bySession);
  }
  let id = bySession.get(pipeline);
  if (!id) {
    id = openLoad(s.warehouse, s.runId, pipeline);
    // A failed lookup is asked again by the next caller, not remembered.
    id.catch(() => bySession.delete(pipeline));
    bySession.set(pipeline, id);
  }
  return id;
}

/**
 * A pipeline's part of the run has ended (however it ended, here or on the workers): the watches
 * of its change views see the load's rows, the watches' digests of this load go to the outbox —
 * once, whoever ends it and however often — and the load is marked finished.
 */
export async function endLoad(s: RunSession, pipeline: LoadedPipeline): Promise<void> {
  const id = await loadOf(s, pipeline.name);
  await alertOnViews(
    s.warehouse,
    pipeline.views.map((v) => v.name),
    { loadId: id, runId: s.runId },
  );
  await writeLoadDigests(s.warehouse, id);
  await finishLoad(s.warehouse, id);
}
