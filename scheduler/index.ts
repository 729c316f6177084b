/** `skillsync schedule`: runs scheduled pipelines on their cron, once per tick across schedulers. */

export {
  readState,
  readStates,
  recentTicks,
  resumeSchedule,
  type ScheduleState,
  type TickStatus,
} from "../store/schedule-state.js";
export { DEFAULT_SCHEDULE_DIR, loadSchedules, type ScheduledPipeline, scheduleParams } from "./load.js";
export {
  type Scheduler,
  type SchedulerOptions,
  type StopSummary,
  startScheduler,
  type TickRecord,
} from "./scheduler.js";
export { paramsForTick, runTick, type TickOutcome } from "./tick.js";
export { formatInZone, nextTimes, pastTicks } from "./times.js";
