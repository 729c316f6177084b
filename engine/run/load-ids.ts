import { openLoad } from "../../store/loads.js";
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
