/**
 * Load a table: rows paged from the server (GET /tables/:name, or what changed in a history table:
 * GET /changes/:name) and written into a tab one page per setValues, within Apps Script's 6-minute
 * limit. A table too large for one execution continues in a follow-up execution (Continue.gs), or
 * the user is told how far it got and how to go on.
 */

const DEFAULT_PAGE_SIZE_ = 2000;
/** The server's largest page. */
const MAX_PAGE_SIZE_ = 5000;
/**
 * No new page starts past this point (plus the slowest page so far) of the 6 minutes Apps Script
 * allows: the rest is margin for the last write and the bookkeeping.
 */
const LOAD_BUDGET_MS_ = 270 * 1000;

/**
 * For the Load dialog: the server's tables and columns (a history table's also the columns of its
 * changes), the tabs, and what the active tab holds.
 */
function getLoadDialogData() {
  const listing = callServer_('GET', '/tables');
  const sheet = SpreadsheetApp.getActiveSheet();
  const memo = tabMemory_(sheet);
  const names = function (t) { return t.columns.map(function (c) { return c.name; }); };
  const byName = {};
  listing.tables.forEach(function (t) { byName[t.name] = t; });
  return {
    tables: listing.tables.map(function (t) {
      const changes = t.history ? byName[t.name + '_changes'] : null;
      const current = t.history ? byName[t.name + '_current'] : null;
      return {
        name: t.name,
        columns: names(t),
        changeColumns: changes ? names(changes) : null,
        // A history table's current versions, one row per key (its <table>_current view).
        current: current ? { name: current.name, columns: names(current) } : null,
      };
    }),
    tabs: SpreadsheetApp.getActive().getSheets().map(function (s) { return s.getName(); }),
    activeTab: sheet.getName(),
    current: memo ? {
      table: memo.table,
      what: memo.source !== 'changes' ? 'rows' : memo.since === 'last' ? 'last' : 'since',
      since: memo.source === 'changes' && memo.since !== 'last' ? memo.since : null,
      columns: memo.columns,
      filters: memo.filters,
      pageSize: memo.pageSize,
    } : null,
    pageSize: DEFAULT_PAGE_SIZE_,
    maxPageSize: MAX_PAGE_SIZE_,
  };
}

/**
 * Loads a table into a tab (created when missing; the table's name by default). For a history table,
 * `what` may ask for its changes instead of its rows: 'last' (made by its latest load) or 'since'
 * (from the date `since` on).
 * @example loadTable({ table: 'marketplace_search_results', columns: ['keyword', 'asin'],
 *   filterColumn: 'keyword', filterValues: 'usb hub\ndesk lamp', tab: 'Results', pageSize: 2000 })
 * @example loadTable({ table: 'patent_legal_status', what: 'since', since: '2026-11-01', tab: 'Changes' })
 */
function loadTable(form) {
  const f = form || {};
  const table = String(f.table || '').trim();
  if (!table) throw fail_('Pick a table to load.');
  const columns = listOf_(f.columns || []);
  const filterColumn = String(f.filterColumn || '').trim();
  const filterValues = listOf_(f.filterValues);
  let filters = null;
  if (filterColumn && filterValues.length) {
    filters = {};
    filters[filterColumn] = filterValues;
  }
  const pageSize = f.pageSize === undefined || f.pageSize === '' ? DEFAULT_PAGE_SIZE_ : Number(f.pageSize);
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE_ && Math.floor(pageSize) === pageSize)) {
    throw fail_('Rows per page must be a whole number from 1 to ' + formatCount_(MAX_PAGE_SIZE_) + '.');
  }
  const since = changesSince_(f);
  const memo = newLoadMemo_({
    table: table,
    columns: columns,
    filters: filters,
    pageSize: pageSize,
    source: since ? 'changes' : 'load',
    since: since,
  });
  return runLoad_(f.tab || table, memo);
}

/** Which changes the form asks for: 'last', a date (YYYY-MM-DD), or null for the table's rows. */
function changesSince_(f) {
  const what = String(f.what || 'rows');
  if (what === 'rows') return null;
  if (what === 'last') return 'last';
  if (what !== 'since') throw fail_('Choose what to load: the current rows, or what changed.');
  const date = String(f.since || '').trim();
  const day = new Date(date + 'T00:00:00Z');
  // A real day: 2026-02-30 parses, but not back to itself.
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(date) && !isNaN(day.getTime()) && day.toISOString().slice(0, 10) === date;
  if (!valid) throw fail_('Pick the date the changes start from (a date like 2026-11-01)' + (date ? ', not "' + date.slice(0, 40) + '"' : '') + '.');
  return date;
}

/**
 * Fills a tab (a Sheet, or a tab name resolved under the lock) as far as this execution allows,
 * schedules the follow-up when unfinished, and says what happened.
 */
function runLoad_(target, memo) {
  const label = typeof target === 'string' ? target : target.getName();
  return withDocumentLock_('loading tab "' + label + '"', function () {
    const tab = typeof target === 'string' ? targetTab_(target) : { sheet: target, created: false };
    const sheet = tab.sheet;
    forgetDeletedTabs_();
    // Until this load writes its first page, the tab shows what it held before: a failure says so.
    if (memo.header === null) memo.previous = rowsHeld_(tabMemory_(sheet));
    memo.error = null;
    memo.failedAt = null;
    if (memo.source === 'run' && !memo.run) memo.run = runOutcome_(memo.runId);
    rememberTab_(sheet, memo);
    try {
      fillTab_(sheet, memo);
    } catch (err) {
      if (tab.created && memo.written === 0 && !memo.header) {
        // Nothing came of it: leave no empty tab behind.
        forgetTab_(sheet.getSheetId());
        SpreadsheetApp.getActive().deleteSheet(sheet);
      } else {
        noteFailure_(sheet, memo, err);
      }
      throw err;
    }
    if (!memo.complete) {
      memo.auto = scheduleContinuation_();
      rememberTab_(sheet, memo);
    }
    setTabNote_(sheet, memo);
    return loadResult_(sheet, memo);
  });
}

/** A load that stopped on an error: remembered (not continued automatically) and said in the note. */
function noteFailure_(sheet, memo, err) {
  memo.error = messageOf_(err);
  memo.failedAt = new Date().toISOString();
  memo.auto = false;
  rememberTab_(sheet, memo);
  setTabNote_(sheet, memo);
}

/**
 * The outcome of the run a tab was filled from, for its note: { status, stopReason, credits, estimated }, or
 * null when the server cannot say now (the note then names the run only; the next refresh asks again).
 */
function runOutcome_(runId) {
  if (!runId) return null;
  try {
    const r = callServer_('GET', '/runs/' + encodeURIComponent(String(runId)));
    return {
      status: r.status,
      stopReason: r.stopReason || null,
      credits: r.credits ? r.credits.spent : 0,
      estimated: Boolean(r.credits && r.credits.estimated),
    };
  } catch (err) {
    console.warn('Skillsync: could not read the outcome of run ' + runId + ': ' + messageOf_(err));
    return null;
  }
}

/**
 * Pages rows into the tab until the table ends or the time budget is used; the memo is saved after
 * every page, so whatever stops this execution, the tab and its memory agree.
 */
function fillTab_(sheet, memo) {
  let slowest = 0;
  let restarted = false;
  while (memo.nextOffset !== null) {
    if (elapsedMs_() + slowest > LOAD_BUDGET_MS_) return memo;
    const started = Date.now();
    const page = fetchPage_(memo);
    const header = memo.columns || page.columns.map(function (c) { return c.name; });
    const first = memo.nextOffset === 0;
    const loadId = page.loadId === undefined ? null : page.loadId;
    const sameLoad = loadId === (memo.loadId === undefined ? null : memo.loadId);
    if (!first && (JSON.stringify(header) !== JSON.stringify(memo.header) || !sameLoad)) {
      // The table's columns (or, for its latest load's changes, its latest load) changed between
      // executions: start over rather than mix two.
      if (restarted) throw fail_('Table "' + memo.table + '" keeps changing while it loads (its columns or its latest load); try again later.');
      restarted = true;
      memo.nextOffset = 0;
      continue;
    }
    const values = pageValues_(page, memo, header);
    if (first) {
      writeHeader_(sheet, header);
      memo.header = header;
      memo.loadId = loadId;
      memo.written = 0;
    }
    writeRows_(sheet, 2 + memo.written, values, header.length);
    memo.written += values.length;
    // After the first page, not before: the tab is never blank while it loads.
    if (first) clearOutside_(sheet, 1 + memo.written, header.length);
    memo.total = page.total;
    memo.scanned = page.offset + page.rows.length;
    memo.nextOffset = page.nextOffset;
    if (memo.nextOffset === null) {
      memo.complete = true;
      memo.auto = false;
      memo.finishedAt = new Date().toISOString();
    }
    rememberTab_(sheet, memo);
    SpreadsheetApp.flush();
    slowest = Math.max(slowest, Date.now() - started);
  }
  return memo;
}

/**
 * One page (of the table's rows, or of its changes); when Apps Script finds the answer too large,
 * the page size is halved and tried again.
 */
function fetchPage_(memo) {
  const filterColumns = memo.filters ? Object.keys(memo.filters) : [];
  const columns = memo.columns ? memo.columns.concat(filterColumns.filter(function (c) { return memo.columns.indexOf(c) < 0; })) : null;
  const changes = memo.source === 'changes';
  for (;;) {
    try {
      const page = callServer_('GET', (changes ? '/changes/' : '/tables/') + encodeURIComponent(memo.table), {
        since: changes ? memo.since : null,
        limit: memo.pageSize,
        offset: memo.nextOffset,
        columns: columns ? columns.join(',') : null,
      });
      const names = page.columns.map(function (c) { return c.name; });
      const missing = filterColumns.filter(function (c) { return names.indexOf(c) < 0; });
      if (missing.length) throw fail_('Table "' + memo.table + '" has no column "' + missing[0] + '" to filter on.');
      return page;
    } catch (err) {
      if (err.reason !== 'too-large' || memo.pageSize <= 1) throw err;
      memo.pageSize = Math.max(1, Math.floor(memo.pageSize / 2));
    }
  }
}

/** The page's rows that pass the filters, as cells in the header's order. */
function pageValues_(page, memo, header) {
  const filters = memo.filters || {};
  const keys = Object.keys(filters);
  return page.rows
    .filter(function (row) {
      return keys.every(function (k) {
        const v = row[k];
        return filters[k].indexOf(v === null || v === undefined ? '' : String(v)) >= 0;
      });
    })
    .map(function (row) { return header.map(function (c) { return toCell_(row[c]); }); });
}

/** What a load did, for the sidebar, the dialog and the menu. */
function loadResult_(sheet, memo) {
  const tab = sheet.getName();
  let message;
  if (memo.complete) {
    message = 'Loaded ' + plural_(memo.written, 'row') + ' of ' + sourceText_(memo, true) + describeFilters_(memo.filters) +
      ' into tab "' + tab + '".';
  } else if (memo.auto) {
    message = 'Loaded ' + progressText_(memo) + ' of ' + sourceText_(memo, true) + ' into tab "' + tab + '" so far. Apps Script ' +
      'stops a script after 6 minutes, so the rest loads in a follow-up run in about a minute (or choose ' +
      'Skillsync › Refresh this tab on that tab to continue now).';
  } else {
    message = 'Loaded ' + progressText_(memo) + ' of ' + sourceText_(memo, true) + ' into tab "' + tab + '" and stopped to stay ' +
      'within Apps Script\'s 6-minute limit. Choose Skillsync › Refresh this tab on that tab to continue from row ' +
      formatCount_(memo.written + 2) + '.';
  }
  return {
    tab: tab,
    table: memo.table,
    written: memo.written,
    total: memo.total,
    complete: memo.complete,
    continues: !memo.complete && memo.auto,
    message: message,
  };
}
