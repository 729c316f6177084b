import cliProgress from "cli-progress";
import { redact } from "../core/redact.js";
import type { RunReporter } from "../engine/start/start-run.js";
import type { RunCounters } from "../store/runs.js";
import { isQuiet } from "./log.js";

const fmtCredits = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** What the answers showed about the mappings, when they showed anything (else nothing, to keep the line short). */
function qualityPart(c: RunCounters): string {
  const parts = [
    c.columnsEmpty ? `empty columns ${c.columnsEmpty}` : "",
    c.membersUnmapped ? `unmapped members ${c.membersUnmapped}` : "",
  ].filter(Boolean);
  return parts.length ? ` · ${parts.join(" · ")}` : "";
}

/** Items reused from stored parts, when there were any. */
function itemsPart(c: RunCounters): string {
  return c.itemsReused
    ? ` · items reused ${c.itemsReused} (credits saved ${fmtCredits(c.creditsSaved)})`
    : "";
}

const nextPages = (c: RunCounters) => `${c.pagesFound} next page${c.pagesFound === 1 ? "" : "s"}`;

/**
 * The calls' parenthesis: how many of the planned calls are next pages found while running (the
 * plan counted first pages only, so the total grows as they are found), and how many came free.
 *
 * @example callsDetail({ ...zeroCounters(), callsPlanned: 5, pagesFound: 2 }) // "(3 planned + 2 next pages, 0 from store)"
 */
export function callsDetail(c: RunCounters): string {
  const pages = c.pagesFound ? `${c.callsPlanned - c.pagesFound} planned + ${nextPages(c)}, ` : "";
  return `(${pages}${c.callsCached} from store${c.callsShared ? `, ${c.callsShared} from another run` : ""})`;
}

function line(c: RunCounters): string {
  return `calls ${c.callsDone}/${c.callsPlanned} ${callsDetail(c)} · rows ${c.rowsWritten} · rejected ${c.rowsRejected} · credits ${fmtCredits(c.creditsSpent)}${itemsPart(c)} · errors ${c.callsFailed}${c.rateLimited ? ` · 429s ${c.rateLimited}` : ""}${qualityPart(c)}`;
}

/**
 * Progress on stderr: a bar on a terminal, a plain line every few seconds otherwise, nothing with
 * --json (stdout then carries only the summary).
 */
export function makeReporter(mode: "auto" | "silent"): RunReporter & { stop(): void } {
  if (mode === "silent" || isQuiet()) return { update() {}, stop() {} };
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format:
          "{bar} calls {value}/{total}{pages} | rows {rows} | rejected {rejected} | credits {credits} | errors {errors}",
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(c, note) {
        const payload = {
          // The total grows as next pages are found: said, so a growing total is not a mistake.
          pages: c.pagesFound ? ` (+${nextPages(c)})` : "",
          rows: c.rowsWritten,
          rejected: c.rowsRejected,
          credits: fmtCredits(c.creditsSpent),
          errors: c.callsFailed,
        };
        if (!started) {
          bar.start(Math.max(1, c.callsPlanned), c.callsDone, payload);
          started = true;
        }
        bar.setTotal(Math.max(1, c.callsPlanned));
        bar.update(c.callsDone, payload);
        if (note) process.stderr.write(`\n${redact(note)}\n`);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = 0;
  return {
    update(c, note) {
      if (note) process.stderr.write(`${redact(note)}\n`);
      const now = Date.now();
      if (now - last >= 2000) {
        last = now;
        process.stderr.write(`${line(c)}\n`);
      }
    },
    stop() {},
  };
}

export { line as progressLine };

/**
 * `skillsync export`'s progress on stderr: a bar per table on a terminal (rows written of the
 * total, when the total is known; the rows written so far otherwise), nothing when stderr is not a
 * terminal or with --quiet.
 */
export function exportProgress(): {
  /** Undefined when nothing is shown (so the export need not count the rows for it). */
  update: ((p: { source: string; rows: number; total: number | undefined }) => void) | undefined;
  stop(): void;
} {
  if (isQuiet() || !process.stderr.isTTY) return { update: undefined, stop() {} };
  let bar: cliProgress.SingleBar | undefined;
  let current = "";
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    update(p) {
      if (p.source !== current) {
        stop();
        current = p.source;
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format:
              p.total === undefined
                ? "{source} | rows {value}"
                : "{bar} {source} | rows {value}/{total} | {eta_formatted}",
            hideCursor: true,
            clearOnComplete: false,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(Math.max(1, p.total ?? 0), 0, { source: p.source });
      }
      bar?.update(p.rows, { source: p.source });
    },
    stop,
  };
}
