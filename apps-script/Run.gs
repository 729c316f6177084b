/**
 * Run a pipeline: the sidebar's server side. The sidebar lists the pipelines and their params, fills a
 * param from the selection, starts the run (POST /runs), polls it (GET /runs/:id) and at the end has
 * the run's rows written into a tab.
 */

/** Everything the sidebar needs to draw its form. */
function getRunSidebarData() {
  const listing = callServer_('GET', '/pipelines');
  const budget = callServer_('GET', '/budget');
  return {
    pipelines: listing.pipelines.map(function (p) {
      return {
        name: p.name,
        description: p.description,
        table: p.table,
        maxCredits: p.maxCredits,
        params: Object.keys(p.params).map(function (name) { return Object.assign({ name: name }, p.params[name]); }),
      };
    }),
    maxCreditsPerRun: budget.maxCreditsPerRun,
    tabs: SpreadsheetApp.getActive().getSheets().map(function (s) { return s.getName(); }),
  };
}

/**
 * The non-blank values of the current selection, row by row, trimmed, without duplicates; frozen header
 * rows and the empty rows below the data are left out.
 */
function selectionValues() {
  const ss = SpreadsheetApp.getActive();
  const list = ss.getActiveRangeList();
  const ranges = list ? list.getRanges() : [ss.getActiveRange()];
  const seen = {};
  const values = [];
  ranges.forEach(function (range) {
    if (!range) return;
    const sheet = range.getSheet();
    const top = Math.max(range.getRow(), sheet.getFrozenRows() + 1);
    const bottom = Math.min(range.getLastRow(), sheet.getLastRow());
    if (bottom < top) return;
    sheet.getRange(top, range.getColumn(), bottom - top + 1, range.getNumColumns()).getValues().forEach(function (row) {
      row.forEach(function (v) {
        const text = cellText_(v);
        if (text !== '' && !seen[text]) {
          seen[text] = true;
          values.push(text);
        }
      });
    });
  });
  if (!values.length) {
    throw fail_('The selection holds no values: select the cells to use first (e.g. a column of keywords), then press From selection.');
  }
  return { values: values, range: ranges.map(function (r) { return r.getA1Notation(); }).join(', ') };
}

/**
 * Starts a run; the server checks the params and answers at once.
 * @example startRun({ pipeline: 'marketplace-search', params: { keyword: ['usb hub'] }, maxCredits: 20 })
 */
function startRun(form) {
  const body = runBody_(form);
  const answer = callServer_('POST', '/runs', null, body);
  return { runId: answer.runId, status: answer.status, pipeline: body.pipeline, maxCredits: answer.maxCredits };
}

/**
 * What the run of this form would cost (POST /plan), as the sidebar shows it before Run is pressed.
 * Sends nothing to the API and spends nothing.
 * @example planRun({ pipeline: 'marketplace-search', params: { keyword: ['usb hub'], pages: '2' }, maxCredits: 1 })
 *   // { line: '1 call · 1 credit for the first pages, at most 2 · 0 from the store',
 *   //   warning: 'Your cap of 1 credit is below the at most 2: the run may stop at the cap with pages missing.' }
 */
function planRun(form) {
  const plan = callServer_('POST', '/plan', null, runBody_(form));
  return { line: priceLine_(plan), warning: capWarning_(plan) };
}

/**
 * The body of POST /runs and POST /plan from the sidebar's form. Both read the form here, so the
 * price shown is the price of the run that Run starts.
 */
function runBody_(form) {
  const f = form || {};
  const pipeline = String(f.pipeline || '').trim();
  if (!pipeline) throw fail_('Pick a pipeline to run.');
  const cap = Number(f.maxCredits);
  if (!(cap > 0)) throw fail_('Set a credit cap: the most credits this run may spend (a number above 0).');
  const params = {};
  Object.keys(f.params || {}).forEach(function (name) {
    const raw = f.params[name];
    const values = listOf_(raw);
    if (values.length) params[name] = Array.isArray(raw) ? values : values[0];
  });
  const body = { pipeline: pipeline, params: params, maxCredits: cap };
  const size = utf8Length_(JSON.stringify(body));
  if (size > 60000) {
    throw fail_('These params are too many for one request (' + formatCount_(size) + ' bytes; the server takes ' +
      'at most 64 KB): select fewer values and run the rest separately.');
  }
  return body;
}

/**
 * "2 calls · 2 credits for the first pages, at most 4 · 1 from the store": the plan's first-page
 * calls, their credits (calls the store answers cost none), the most that further pages can add,
 * and what the store answers — identifiers for a batched pipeline, whose batches are split per item.
 */
function priceLine_(plan) {
  const p = plan.pipelines[0];
  if (p.inputs === 0) return 'No inputs: nothing to ask, 0 credits.';
  const credits = plan.credits === plan.creditsAtMost
    ? plural_(plan.credits, 'credit')
    : plural_(plan.credits, 'credit') + ' for the first pages, at most ' + formatCount_(plan.creditsAtMost);
  const stored = p.items
    ? formatCount_(p.items.fromStore) + ' of ' + plural_(p.items.asked, 'identifier') + ' from the store'
    : formatCount_(p.fromStore) + ' from the store';
  return plural_(p.calls, 'call') + ' · ' + credits + ' · ' + stored;
}

/** Said when the cap would stop the run: surely (below the first pages) or perhaps (below the at most). */
function capWarning_(plan) {
  const cap = plural_(plan.maxCredits, 'credit');
  if (plan.maxCredits < plan.credits) {
    return 'Your cap of ' + cap + ' is below the ' + formatCount_(plan.credits) + ' the first pages need: ' +
      'the run will stop at the cap with calls not made.';
  }
  if (!plan.ceilingBelowAtMost) return '';
  return 'Your cap of ' + cap + ' is below the at most ' + formatCount_(plan.creditsAtMost) + ': ' +
    'the run may stop at the cap with pages missing.';
}

/** One poll of a run, with a line the sidebar shows as it is. */
function pollRun(runId) {
  return runView_(callServer_('GET', '/runs/' + encodeURIComponent(String(runId))));
}

/**
 * Writes the rows a finished run loaded into a tab (the pipeline's name by default).
 * @example writeRunTable('q20240501120000-1a2b3c4d', 'Results')
 */
function writeRunTable(runId, tabName) {
  const run = callServer_('GET', '/runs/' + encodeURIComponent(String(runId)));
  if (run.status === 'queued' || run.status === 'running') {
    throw fail_('Run ' + runId + ' is still ' + run.status + '; its rows can be written when it has finished.');
  }
  if (!run.warehouseRunId || !run.rows || !run.rows.written) {
    return { written: 0, complete: true, message: 'Run ' + run.pipeline + ' ended ' + run.status + ' without rows, so no tab was written.' };
  }
  const listing = callServer_('GET', '/pipelines').pipelines.filter(function (p) { return p.name === run.pipeline; });
  if (!listing.length) throw fail_('The server no longer has pipeline "' + run.pipeline + '".');
  const table = listing[0].table;
  const info = callServer_('GET', '/tables').tables.filter(function (t) { return t.name === table; });
  const hasRunId = info.length && info[0].columns.some(function (c) { return c.name === 'run_id'; });
  const memo = newLoadMemo_({
    table: table,
    // The table holds every run's rows; the tab gets this run's.
    filters: hasRunId ? { run_id: [run.warehouseRunId] } : null,
    pageSize: MAX_PAGE_SIZE_,
    source: 'run',
    runId: run.runId,
    pipeline: run.pipeline,
  });
  return runLoad_(String(tabName || '').trim() || run.pipeline, memo);
}

function runView_(r) {
  const finished = r.status !== 'queued' && r.status !== 'running';
  const calls = r.calls || { done: 0, planned: 0, cached: 0, failed: 0 };
  const credits = r.credits || { spent: 0 };
  const rows = r.rows || { written: 0, rejected: 0 };
  let line = r.status + ' · ' + formatCount_(calls.done) + ' of ' + plural_(calls.planned, 'call') +
    (calls.cached ? ' (' + formatCount_(calls.cached) + ' cached)' : '') + (calls.failed ? ', ' + formatCount_(calls.failed) + ' failed' : '') +
    ' · ' + (credits.estimated ? '≈' : '') + formatCount_(credits.spent) + (credits.max ? ' of ' + formatCount_(credits.max) : '') + ' credits · ' +
    plural_(rows.written, 'row') + (rows.rejected ? ' (' + formatCount_(rows.rejected) + ' rejected)' : '');
  if (finished && r.stopReason) line += ' · ' + r.stopReason;
  return {
    runId: r.runId,
    pipeline: r.pipeline,
    status: r.status,
    warehouseRunId: r.warehouseRunId || null,
    // Only the warehouse's runs carry a trigger; the server's own queue does not (they are all "server").
    scheduled: r.trigger === 'schedule',
    finished: finished,
    calls: calls,
    credits: credits,
    rows: rows,
    startedAt: r.startedAt || r.queuedAt || null,
    errors: (r.errors || []).slice(0, 5).map(function (e) { return e.message; }),
    line: line,
  };
}
