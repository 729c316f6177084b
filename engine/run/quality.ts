import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import { recordFailure } from "../extract/skill-caller.js";
import type { Answer } from "../load/load-response.js";
import {
  type MappingQuality,
  type MappingWatch,
  mappingWatch,
  missingRecordsPath,
} from "../normalize/record-check.js";
import type { RunEnv, RunSession } from "./session.js";

/**
 * One pipeline's watch over what its answers give: an answer without the `records.path` member
 * fails its call (its paid answer kept), and at the end empty columns, unmapped members and
 * rejected records become warnings (endQuality).
 */
export function pipelineQuality(s: RunSession, p: LoadedPipeline, rule: QualityRule) {
  const watch: MappingWatch = mappingWatch(p.records);
  const base = { membersUnmapped: s.counters.membersUnmapped };
  let rejected = 0;
  let firstReject: string | undefined;
  let pathFailures = 0;
  const seen = (): QualitySeen => ({ ...watch.quality(), rejected, firstReject });
  return {
    /** Why this answer cannot be loaded (records.path names no member of it), or undefined. */
    refuse(call: PlannedCall, data: unknown): string | undefined {
      const wrong = missingRecordsPath(p.records.path, data);
      if (!wrong) return undefined;
      const message = `${p.name}: ${wrong}. Fix records.path in ${p.file} and run again: the stored answer is loaded for 0 credits`;
      // One line, not one per call: the others are the same mistake.
      recordFailure(
        s,
        {
          pipeline: p.name,
          skill: p.skill,
          requestHash: call.hash,
          code: "RECORDS_PATH",
          message,
          ambiguous: false,
        },
        pathFailures++ === 0,
      );
      return message;
    },
    /** Looks at a loaded group's answers. */
    loaded(group: readonly Answer[], r: { rejected: number; firstReject?: string | undefined }): void {
      for (const a of group) watch.observe(a.data);
      rejected += r.rejected;
      firstReject ??= r.firstReject;
      s.counters.membersUnmapped = base.membersUnmapped + watch.quality().unmappedMembers.length;
    },
    /** What this share of the pipeline's answers showed, for a run spread over workers to add up. */
    seen,
    /** The pipeline's warnings, added to the run's (and its strict failure). */
    end(): void {
      endQuality(s, p, rule, seen());
    },
  };
}

/** What a pipeline's answers showed: empty columns, unmapped members, rejected records. */
export interface QualitySeen extends MappingQuality {
  rejected: number;
  firstReject: string | undefined;
}

export const emptySeen = (): QualitySeen => ({
  emptyColumns: [],
  unmappedMembers: [],
  records: 0,
  rejected: 0,
  firstReject: undefined,
});

/**
 * What several shares of one pipeline's answers showed, as if one process had seen them all: a
 * column is empty when it was empty in every share that saw records, a member unmapped when any
 * share met it.
 */
export function mergeSeen(parts: readonly QualitySeen[]): QualitySeen {
  const withRecords = parts.filter((q) => q.records > 0);
  const empty = withRecords.length
    ? withRecords.map((q) => q.emptyColumns).reduce((a, b) => a.filter((c) => b.includes(c)))
    : [];
  return {
    emptyColumns: empty,
    unmappedMembers: [...new Set(parts.flatMap((q) => q.unmappedMembers))],
    records: parts.reduce((n, q) => n + q.records, 0),
    rejected: parts.reduce((n, q) => n + q.rejected, 0),
    firstReject: parts.find((q) => q.firstReject)?.firstReject,
  };
}

/** How loud a pipeline's quality warnings are: `strict` fails the run; `allowRejects` accepts rejected records. */
export interface QualityRule {
  strict: boolean;
  allowRejects: boolean;
}

/** The run's flags and the pipeline file together decide how loud its quality warnings are. */
export function qualityRule(env: RunEnv, p: LoadedPipeline): QualityRule {
  return {
    strict: env.strict === true || p.strict,
    allowRejects: env.allowRejects === true || p.rejects === "allow",
  };
}

/**
 * Whether an answer can be loaded. One without its `records.path` member fails its call — the
 * answer stays in the store (a fixed file reloads it for 0 credits) — and stops the pipeline,
 * whose other calls would meet the same mistake.
 */
export function loadable(
  run: { quality: PipelineQuality; pipelineStop: { stop: boolean; failed: number } },
  answer: Answer,
): boolean {
  if (!run.quality.refuse(answer.call, answer.data)) return true;
  run.pipelineStop.failed++;
  run.pipelineStop.stop = true;
  return false;
}

/**
 * A pipeline's quality at its end: counted, turned into the run's warnings. Rejected records make
 * the run end `warnings` (exit 5) unless the pipeline or run accepts them; `strict` fails it on any.
 */
export function endQuality(s: RunSession, p: LoadedPipeline, rule: QualityRule, q: QualitySeen): void {
  s.counters.columnsEmpty += q.emptyColumns.length;
  const { rejected, firstReject } = q;
  const warnings = [
    ...(rejected
      ? [`${p.name}: ${rejected} record(s) rejected (kept in skillsync_rejects): ${firstReject ?? ""}`]
      : []),
    ...(q.emptyColumns.length
      ? [`${p.name}: no record has the member of column(s) ${q.emptyColumns.join(", ")}: null in every row`]
      : []),
    ...(q.unmappedMembers.length
      ? [
          `${p.name}: record member(s) no column reads: ${q.unmappedMembers.slice(0, 12).join(", ")}${q.unmappedMembers.length > 12 ? ", …" : ""}${p.records.extra ? ` (kept in ${p.records.extra})` : ""}`,
        ]
      : []),
  ];
  s.warnings.push(...warnings);
  if (rule.strict && warnings.length) s.state.strictFailure = true;
  if (rejected && !rule.allowRejects) s.state.rejectWarning = true;
}

export type PipelineQuality = ReturnType<typeof pipelineQuality>;
