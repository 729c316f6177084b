import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScanCounts } from "./scan.js";

type Figures = Record<string, number | string[]>;

/** Sums the figures every test file wrote (numbers add up, `*_max` keep the largest, lists join). */
function collectFigures(dir: string): Record<string, Figures> {
  const out: Record<string, Figures> = {};
  for (const f of readdirSync(join(dir, "figures")).sort()) {
    const { area, figures } = JSON.parse(readFileSync(join(dir, "figures", f), "utf8")) as {
      area: string;
      figures: Figures;
    };
    const into: Figures = out[area] ?? {};
    out[area] = into;
    for (const [k, v] of Object.entries(figures)) {
      const have = into[k];
      if (Array.isArray(v)) into[k] = [...(Array.isArray(have) ? have : []), ...v];
      else if (k.endsWith("_max")) into[k] = Math.max(typeof have === "number" ? have : 0, v);
      else into[k] = (typeof have === "number" ? have : 0) + v;
    }
  }
  return out;
}

const num = (f: Figures | undefined, k: string) => (typeof f?.[k] === "number" ? (f[k] as number) : 0);

/** Prints the suite's figures and writes them to test/reliability/results.json. */
export function summarise(dir: string, scan: ScanCounts, meta: { seconds: number; schemas: number }): void {
  const areas = collectFigures(dir);
  const {
    crash,
    faults,
    ceilings,
    bad_input: bad,
    load,
    concurrent,
    read_only: ro,
    workers,
    history,
  } = areas;
  const headline = {
    crashTrials: { sqlite: num(crash, "trials_sqlite"), postgres: num(crash, "trials_postgres") },
    faultsInjected: num(faults, "faults_injected"),
    badInputsTried: num(bad, "tried"),
    ceilingRuns: num(ceilings, "runs"),
    loadRequests: num(load, "requests"),
    duplicates: num(crash, "duplicates") + num(faults, "duplicates"),
    lostRows: num(crash, "lost_rows") + num(faults, "lost_rows"),
    doublePaidCalls:
      num(crash, "double_paid") +
      num(faults, "double_paid") +
      num(bad, "sent") +
      num(ceilings, "double_paid") +
      num(concurrent, "double_paid"),
    overshootCredits:
      num(crash, "overshoot") + num(ceilings, "overshoot") + num(workers, "ceiling_overshoot"),
    leaks: scan.leaks.length,
  };
  const results = {
    date: new Date().toISOString(),
    seconds: meta.seconds,
    machine: { cores: 2, node: process.version },
    headline,
    areas,
    secretsScan: {
      files: scan.files,
      tables: scan.tables,
      cells: scan.cells,
      storedResponses: scan.storedResponses,
      postgresSchemas: meta.schemas,
      leaks: scan.leaks.slice(0, 50),
    },
  };
  writeFileSync(
    fileURLToPath(new URL("../results.json", import.meta.url)),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  const lines = [
    "",
    "── skillsync reliability ──────────────────────────────────────────",
    `crash trials      sqlite ${headline.crashTrials.sqlite}, postgres ${headline.crashTrials.postgres} (SIGKILL at a random moment, then resumed)`,
    `faults injected   ${headline.faultsInjected} over ${num(faults, "pipelines")} pipelines (${num(faults, "runs")} runs)`,
    `ceiling runs      ${headline.ceilingRuns} (postgres ${num(ceilings, "runs_postgres")}, separate processes ${num(ceilings, "runs_processes")})`,
    `bad inputs tried  ${headline.badInputsTried} (rejected at the right place: ${num(bad, "rejected")})`,
    `load              ${headline.loadRequests} concurrent requests, ${num(load, "answered")} answered, ${num(load, "server_errors")} 5xx, ${num(load, "runs_lost")} runs lost`,
    `duplicates ${headline.duplicates} · lost rows ${headline.lostRows} · double-paid calls ${headline.doublePaidCalls} · overshoot ${headline.overshootCredits} credits · leaks ${headline.leaks}`,
    `concurrent runs    ${num(concurrent, "runs")} identical runs at once (${num(concurrent, "trials_sqlite")} sqlite, ${num(concurrent, "trials_postgres")} postgres trials): ${num(concurrent, "requests_paid")} requests paid, ${num(concurrent, "double_paid")} twice, ${num(concurrent, "answers_shared")} answers shared`,
    `first use at once  ${num(concurrent, "first_use_processes")} processes on new warehouses, ${num(concurrent, "first_use_failed")} failed`,
    `in-flight calls re-paid after a kill (answered, not yet kept) ${num(crash, "inflight_repaid")} of ${num(crash, "inflight_at_kill")} in flight (at most ${num(crash, "inflight_repaid_trial_max")} in one trial), answered up to ${num(crash, "inflight_window_ms_max")} ms before the kill; printed credits off the ledger in ${num(crash, "printed_credits_off")} runs`,
    `read-only path    ${num(ro, "sqlite_statements_max")} hostile statements through every read path: sqlite ${num(ro, "sqlite_refused")} refused, ${num(ro, "sqlite_timed_out")} stopped at the limit, ${num(ro, "sqlite_finished")} finished; postgres as a superuser (${num(ro, "postgres_statements_max")} statements, ${num(ro, "postgres_views_max")} views) ${num(ro, "postgres_refused")} refused (${num(ro, "postgres_refused_check")} by the check, ${num(ro, "postgres_refused_privilege")} for want of a privilege) / ${num(ro, "postgres_timed_out")} stopped / ${num(ro, "postgres_finished")} finished (${num(ro, "postgres_finished_no_effect")} without effect); lasting effects ${num(ro, "postgres_lasting_effects")}, leaks ${num(ro, "postgres_leaks")}, session state left ${num(ro, "postgres_session_state")}; same-role reads ended ${num(ro, "same_role_reads_ended")}, processes crashed ${num(ro, "same_role_processes_crashed")}; slowest ${Math.max(num(ro, "sqlite_slowest_ms_max"), num(ro, "postgres_slowest_ms_max"))} ms; killed client's backend gone in ${num(ro, "killed_client_backend_gone_ms_max")} ms`,
    `workers           ${num(workers, "workers")} worker processes, ${num(workers, "killed")} killed -9 mid-run: ${num(workers, "calls")} calls, ${num(workers, "requests_paid_twice")} paid twice (${num(workers, "interrupted_at_kill")} in flight at the kill); ${num(workers, "kill_trials")} more kill trials: ${num(workers, "kill_trials_paid_twice")} paid twice of ${num(workers, "kill_trials_in_flight")} in flight (at most ${num(workers, "kill_trials_paid_twice_trial_max")} in one trial, answered up to ${num(workers, "kill_trials_window_ms_max")} ms before the kill); --max-credits ${num(workers, "ceiling_over_3_workers")} over 3 workers: ${num(workers, "ceiling_charged")} charged, overshoot ${num(workers, "ceiling_overshoot")}`,
    `history tables    kill -9 trials sqlite ${num(history, "kill_trials_sqlite")}, postgres ${num(history, "kill_trials_postgres")} (${num(history, "killed")} killed, ${num(history, "killed_with_answers_unloaded")} with answers kept and not loaded): invariant violations ${num(history, "invariant_violations")}, load counters off ${num(history, "load_counter_mismatches")}, versions off ${num(history, "content_mismatches")}; identifiers re-paid ${num(history, "identifiers_repaid")} of ${num(history, "identifiers_in_flight_at_kill")} in flight; ${num(history, "at_once_runs")} runs 4 at once: ${num(history, "at_once_identifiers_paid_twice")} identifiers paid twice`,
    `secret scan: ${scan.files} files, ${scan.tables} tables, ${scan.cells} cells, ${scan.storedResponses} stored responses, ${meta.schemas} Postgres schemas`,
    `took ${meta.seconds} s · results in test/reliability/results.json`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
}
