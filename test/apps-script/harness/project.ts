import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import type { Backend } from "./backend-client.js";
import { EXECUTION_LIMIT_MS, Execution, type ExecutionKind, SimClock } from "./clock.js";
import { fakeHtmlService } from "./html.js";
import {
  FakeDocumentLock,
  FakeProperties,
  type FakeTrigger,
  type FetchOptions,
  fakeLogging,
  fakeScriptApp,
  fakeUrlFetchApp,
  fakeUtilities,
  type SentRequest,
} from "./services.js";
import { type FakeEnv, FakeSpreadsheet, fakeUi, type UiRecord } from "./sheets.js";

export const APPS_SCRIPT_DIR = new URL("../../../apps-script/", import.meta.url).pathname;

/** Date in the script's context follows the simulated clock (global code reads it at every start). */
const SIM_DATE = `(() => {
  const RealDate = Date;
  const now = __now;
  class SimDate extends RealDate {
    constructor(...args) { if (args.length === 0) super(now()); else super(...args); }
    static now() { return now(); }
  }
  globalThis.Date = SimDate;
})();`;

export interface Outcome {
  // biome-ignore lint/suspicious/noExplicitAny: whatever the script returned, asserted by tests
  value: any;
  error: Error | undefined;
  execution: Execution;
}

export type RpcResult =
  // biome-ignore lint/suspicious/noExplicitAny: JSON from the script, asserted by tests
  { ok: true; value: any } | { ok: false; message: string };

/**
 * The add-on's .gs files run as Apps Script runs them: each execution (menu click, google.script.run
 * call, trigger) gets a fresh global scope with every file's global code evaluated, over services whose
 * state (the spreadsheet, properties, triggers, locks) persists between executions.
 */
export class GasProject {
  readonly clock = new SimClock();
  /** Simulated cost of writing cells; fetch costs are in `fetch`. */
  readonly costs = { perCellMs: 0.02 };
  readonly fetch: FetchOptions = { fetchMs: 300, responseLimit: 50 * 1024 * 1024, whitelist: null };
  readonly triggerOptions = { refuse: false };
  readonly spreadsheet: FakeSpreadsheet;
  readonly userProperties: FakeProperties;
  readonly documentProperties: FakeProperties;
  readonly scriptProperties: FakeProperties;
  readonly triggers: FakeTrigger[] = [];
  readonly logs: string[] = [];
  readonly ui: UiRecord = { menus: [], alerts: [], sidebars: [], dialogs: [] };
  readonly sent: SentRequest[] = [];
  readonly executions: Execution[] = [];
  readonly rpcResults: unknown[] = [];
  /** Messages of errors that ended executions. */
  readonly errors: string[] = [];
  /** Runs before each fetch is sent (e.g. to start an overlapping execution). */
  beforeFetch: (r: SentRequest) => void = () => {};
  private readonly scripts: vm.Script[];
  private readonly stack: Execution[] = [];
  private readonly lock = new FakeDocumentLock();
  private readonly env: FakeEnv;
  private nextExecution = 1;

  constructor(
    private readonly backend: Backend | undefined,
    readonly dir = APPS_SCRIPT_DIR,
  ) {
    const project = this;
    this.env = {
      // Outside an execution it is the test (the user) acting: no script time is spent.
      spend: (ms) => project.stack[project.stack.length - 1]?.spend(ms),
      get perCellMs() {
        return project.costs.perCellMs;
      },
      kind: () => project.current().kind,
    };
    this.scripts = readdirSync(dir)
      .filter((f) => f.endsWith(".gs"))
      .sort()
      .map((f) => new vm.Script(readFileSync(join(dir, f), "utf8"), { filename: join(dir, f) }));
    this.spreadsheet = new FakeSpreadsheet(this.env);
    this.userProperties = new FakeProperties(this.env);
    this.documentProperties = new FakeProperties(this.env);
    this.scriptProperties = new FakeProperties(this.env);
  }

  current(): Execution {
    const e = this.stack[this.stack.length - 1];
    if (!e) throw new Error("test bug: a service was used outside an execution");
    return e;
  }

  private context(): vm.Context {
    const env = this.env;
    const ss = this.spreadsheet;
    const kind = () => this.current().kind;
    const ui = fakeUi(env, this.ui);
    let ctx: vm.Context | undefined;
    const backend = this.backend;
    const urlFetch =
      backend && fakeUrlFetchApp(env, backend, this.fetch, this.sent, (r) => this.beforeFetch(r));
    const scriptApp = fakeScriptApp(env, this.triggers, () => this.clock.now(), this.triggerOptions);
    const noAuth = (what: string) => {
      if (kind() === "simple")
        throw new Error(`Exception: You do not have permission to call ${what} from a simple trigger.`);
    };
    const sandbox = {
      __now: () => this.clock.now(),
      SpreadsheetApp: {
        getActive: () => ss,
        getActiveSpreadsheet: () => ss,
        getActiveSheet: () => ss.getActiveSheet(),
        getActiveRange: () => ss.getActiveRange(),
        getUi: () => {
          if (kind() === "trigger")
            throw new Error("Exception: Cannot call SpreadsheetApp.getUi() from this context.");
          return ui;
        },
        flush: () => env.spend(1),
      },
      UrlFetchApp: {
        fetch: (url: string, params?: Record<string, unknown>) => {
          noAuth("UrlFetchApp.fetch");
          if (!urlFetch) throw new Error("test bug: this project has no backend to fetch from");
          return urlFetch.fetch(url, params);
        },
      },
      PropertiesService: {
        getUserProperties: () => this.userProperties,
        getDocumentProperties: () => this.documentProperties,
        getScriptProperties: () => this.scriptProperties,
      },
      LockService: {
        getDocumentLock: () => this.lock.handle(env, () => this.current().id),
      },
      ScriptApp: {
        ...scriptApp,
        newTrigger: (handler: string) => {
          noAuth("ScriptApp.newTrigger");
          return scriptApp.newTrigger(handler);
        },
      },
      Utilities: fakeUtilities(env),
      HtmlService: fakeHtmlService(
        this.dir,
        () => ctx!,
        (ms) => env.spend(ms),
      ),
      Session: { getScriptTimeZone: () => "Etc/UTC", getTemporaryActiveUserKey: () => "fake-user-key" },
      ...fakeLogging(this.logs),
    };
    ctx = vm.createContext(sandbox);
    vm.runInContext(SIM_DATE, ctx);
    for (const s of this.scripts) s.runInContext(ctx);
    return ctx;
  }

  /** One execution of a top-level function, as Apps Script runs it. */
  execute(kind: ExecutionKind, entry: string, args: unknown[] = []): Outcome {
    const limit = kind === "simple" ? 30_000 : EXECUTION_LIMIT_MS;
    const execution = new Execution(this.nextExecution++, kind, entry, this.clock, limit);
    this.executions.push(execution);
    this.stack.push(execution);
    let value: unknown;
    let error: Error | undefined;
    try {
      const ctx = this.context();
      const fn = ctx[entry] as unknown;
      if (typeof fn !== "function") throw new Error(`Script function not found: ${entry}`);
      value = (fn as (...a: unknown[]) => unknown)(...args);
      execution.check();
    } catch (err) {
      // Errors from the script's own realm are not `instanceof Error` here.
      const message = (err as { message?: unknown } | null)?.message;
      error = typeof message === "string" ? new Error(message) : new Error(String(err));
      if (execution.killed) error = new Error(`${entry}: Exceeded maximum execution time`);
      this.errors.push(error.message);
    } finally {
      this.stack.pop();
      execution.ended = this.clock.now();
      if (this.lock.owner === execution.id) this.lock.owner = null;
    }
    return { value, error, execution };
  }

  /** The spreadsheet opens: onOpen as a simple trigger. */
  open(): Outcome {
    return this.execute("simple", "onOpen", [{ authMode: "LIMITED" }]);
  }

  /** Clicks a Skillsync menu item by its label. */
  menu(label: string): Outcome {
    const items = this.ui.menus.flatMap((m) => m.items);
    const item = items.find((i) => i.label === label);
    if (!item) throw new Error(`no menu item "${label}" (have: ${items.map((i) => i.label).join(", ")})`);
    return this.execute("menu", item.fn);
  }

  /** A google.script.run call from a sidebar or dialog: only public functions, arguments and result as JSON. */
  rpc(fn: string, ...args: unknown[]): RpcResult {
    if (fn.endsWith("_")) throw new Error(`google.script.run cannot call private function ${fn}`);
    const o = this.execute("rpc", fn, JSON.parse(JSON.stringify(args)) as unknown[]);
    if (o.error) {
      const failed = { ok: false as const, message: o.error.message };
      this.rpcResults.push(failed);
      return failed;
    }
    const value: unknown = o.value === undefined ? null : JSON.parse(JSON.stringify(o.value));
    this.rpcResults.push(value);
    return { ok: true, value };
  }

  /** rpc that must succeed. */
  // biome-ignore lint/suspicious/noExplicitAny: JSON from the script, asserted by tests
  call(fn: string, ...args: unknown[]): any {
    const r = this.rpc(fn, ...args);
    if (!r.ok) throw new Error(`${fn} failed: ${r.message}`);
    return r.value;
  }

  /** Fires the next time-driven trigger (waiting for it on the simulated clock); false when none is pending. */
  fireNextTrigger(): Outcome | false {
    const next = this.triggers.filter((t) => !t.deleted && !t.fired).sort((a, b) => a.dueAt - b.dueAt)[0];
    if (!next) return false;
    const wait = next.dueAt - this.clock.now();
    if (wait > 0) this.clock.advance(wait);
    // A recurring trigger stays, due again one interval later.
    if (next.everyMs === undefined) next.fired = true;
    else next.dueAt += next.everyMs;
    return this.execute("trigger", next.handler, [{ triggerUid: next.uid, authMode: "FULL" }]);
  }

  pendingTriggers(): FakeTrigger[] {
    return this.triggers.filter((t) => !t.deleted && !t.fired);
  }

  /** Everything the script left where a person or a log could read it. */
  visibleText(): string {
    const cells = this.spreadsheet.sheets.flatMap((s) => [
      ...[...s.cells.values()].map((c) => `${String(c.value)} ${c.formula ?? ""}`),
      ...s.notes.values(),
    ]);
    return [
      ...this.logs,
      ...this.ui.alerts.map((a) => `${a.title} ${a.message}`),
      ...this.spreadsheet.toasts.map((t) => `${t.title} ${t.message}`),
      ...this.ui.sidebars.map((h) => h.getContent()),
      ...this.ui.dialogs.map((d) => d.html.getContent()),
      ...cells,
      ...this.documentProperties.map.values(),
      ...this.scriptProperties.map.values(),
      ...this.rpcResults.map((r) => JSON.stringify(r)),
      ...this.errors,
    ].join("\n");
  }
}
