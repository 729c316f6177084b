/**
 * What each tab remembers: which table (or which of a history table's changes), columns and filters
 * filled it and how far the load got, in Document Properties keyed by the tab's id (stable across
 * renames). Refresh this tab repeats it; the follow-up trigger continues the unfinished ones.
 */

const TAB_PROPERTY_PREFIX_ = 'skillsync.tab.';
/** Apps Script keeps at most 9 KB in one property. */
const MAX_MEMO_CHARS_ = 9000;

/**
 * A fresh load: nothing written yet. `source` is 'load' (a table's rows), 'run' (the rows of run
 * `runId`) or 'changes' (what changed in a history table: `since` 'last' or a date).
 * @example newLoadMemo_({ table: 'marketplace_search_results', filters: { keyword: ['usb hub'] } })
 * @example newLoadMemo_({ table: 'patent_legal_status', source: 'changes', since: 'last' })
 */
function newLoadMemo_(o) {
  return {
    table: o.table,
    columns: o.columns && o.columns.length ? o.columns : null,
    filters: o.filters || null,
    pageSize: o.pageSize || DEFAULT_PAGE_SIZE_,
    source: o.source || 'load',
    since: o.since || null,
    runId: o.runId || null,
    pipeline: o.pipeline || null,
    // The run's outcome and credits (runOutcome_): a finished run's do not change, so a refresh keeps them.
    run: o.run || null,
    // For the latest load's changes: the load they are of, fixed by the first page.
    loadId: null,
    // What the tab held before this load wrote its first page (rowsHeld_).
    previous: null,
    header: null,
    nextOffset: 0,
    scanned: 0,
    written: 0,
    total: null,
    complete: false,
    auto: false,
    error: null,
    failedAt: null,
    startedAt: new Date().toISOString(),
    finishedAt: null,
  };
}

/**
 * The same load from the start (what Refresh this tab does to a finished tab). The latest load's
 * changes are asked for again as they stand then: the latest load may be a newer one.
 */
function restartMemo_(memo) {
  return newLoadMemo_(memo);
}

function tabMemory_(sheet) {
  return readJsonProperty_(PropertiesService.getDocumentProperties(), TAB_PROPERTY_PREFIX_ + sheet.getSheetId());
}

function rememberTab_(sheet, memo) {
  const text = JSON.stringify(memo);
  if (text.length > MAX_MEMO_CHARS_) {
    throw fail_('This load is too large to remember for Refresh this tab (' + formatCount_(text.length) +
      ' characters, at most ' + formatCount_(MAX_MEMO_CHARS_) + '): use fewer filter values or columns.');
  }
  PropertiesService.getDocumentProperties().setProperty(TAB_PROPERTY_PREFIX_ + sheet.getSheetId(), text);
}

function forgetTab_(sheetId) {
  PropertiesService.getDocumentProperties().deleteProperty(TAB_PROPERTY_PREFIX_ + sheetId);
}

/** Every remembered tab: [{ sheetId, memo }]. */
function rememberedTabs_() {
  const props = PropertiesService.getDocumentProperties();
  return props.getKeys()
    .filter(function (k) { return k.indexOf(TAB_PROPERTY_PREFIX_) === 0; })
    .map(function (k) { return { sheetId: Number(k.slice(TAB_PROPERTY_PREFIX_.length)), memo: readJsonProperty_(props, k) }; })
    .filter(function (t) { return t.memo !== null; });
}

/** Drops what deleted tabs remembered (Document Properties hold 500 KB in all). */
function forgetDeletedTabs_() {
  const ids = SpreadsheetApp.getActive().getSheets().map(function (s) { return s.getSheetId(); });
  rememberedTabs_().forEach(function (t) {
    if (ids.indexOf(t.sheetId) < 0) forgetTab_(t.sheetId);
  });
}

function sheetById_(sheetId) {
  const found = SpreadsheetApp.getActive().getSheets().filter(function (s) { return s.getSheetId() === sheetId; });
  return found.length ? found[0] : null;
}

/**
 * The tab to write into, created when missing ({ sheet, created }). A tab holding data Skillsync did not
 * write is refused, so a load never overwrites the user's own cells (e.g. the keywords a run started from).
 */
function targetTab_(name) {
  const title = String(name || '').trim();
  if (!title) throw fail_('Name the tab to write the rows to.');
  if (title.length > 100) throw fail_('Tab names have at most 100 characters; "' + title.slice(0, 40) + '…" has ' + title.length + '.');
  const ss = SpreadsheetApp.getActive();
  const sheet = ss.getSheetByName(title);
  if (!sheet) {
    // A new tab is 1000 rows × 26 columns.
    if (spreadsheetCells_() + 26000 > MAX_SPREADSHEET_CELLS_) {
      throw fail_('A new tab would take the spreadsheet over Google Sheets\' limit of ' + formatCount_(MAX_SPREADSHEET_CELLS_) +
        ' cells: delete unused tabs, or load into a tab Skillsync filled before.');
    }
    return { sheet: ss.insertSheet(title), created: true };
  }
  if (!tabMemory_(sheet) && sheet.getLastRow() > 0) {
    throw fail_('Tab "' + title + '" holds data that Skillsync did not write. Pick another tab name (or clear ' +
      'that tab first) so none of your own cells are overwritten.');
  }
  return { sheet: sheet, created: false };
}

/**
 * The rows a tab shows as far as its memory says ({ written, finishedAt }), or null for a tab Skillsync
 * has not filled: a load that has not written its first page yet leaves the tab as it was before.
 */
function rowsHeld_(memo) {
  if (!memo) return null;
  if (memo.header === null) return memo.previous || null;
  return { written: memo.written, finishedAt: memo.complete ? memo.finishedAt : null };
}

/**
 * The note on the header cell: what filled the tab; when its last load or refresh ended, how, and
 * with how many rows (a failed one: why, and what the tab still holds); for a run's tab, the run's
 * outcome and credits.
 */
function setTabNote_(sheet, memo) {
  const lines = ['Skillsync: ' + sourceText_(memo, false) + describeFilters_(memo.filters)];
  const failedAt = memo.failedAt ? ' ' + formatTime_(new Date(memo.failedAt)) : '';
  if (memo.error && memo.header === null && memo.previous) {
    lines.push('failed' + failedAt + ', nothing written: ' + memo.error);
    lines.push('the tab keeps its previous ' + plural_(memo.previous.written, 'row') +
      (memo.previous.finishedAt ? ', loaded ' + formatTime_(new Date(memo.previous.finishedAt)) : ''));
  } else if (memo.error) {
    lines.push('failed' + failedAt + ' after ' + plural_(memo.written, 'row') + ': ' + memo.error);
  } else if (memo.complete) {
    lines.push(plural_(memo.written, 'row') + ', loaded ' + formatTime_(new Date(memo.finishedAt)));
  } else {
    lines.push('loading: ' + progressText_(memo) + (memo.auto ? ' (continues automatically)' : ' (choose Skillsync › Refresh this tab to continue)'));
  }
  if (memo.source === 'run') lines.push(runText_(memo));
  sheet.getRange(1, 1).setNote(lines.join('\n'));
}

/**
 * What filled the tab: 'table results', or 'changes of patent_legal_status made by the latest load
 * (load 7)' / '… since 2026-11-01'; `quoted` for messages: 'table "results"', 'the changes of table "…" …'.
 */
function sourceText_(memo, quoted) {
  const name = quoted ? '"' + memo.table + '"' : memo.table;
  if (memo.source !== 'changes') return 'table ' + name;
  const since = memo.since === 'last'
    ? ' made by the latest load' + (memo.loadId ? ' (load ' + memo.loadId + ')' : '')
    : ' since ' + memo.since;
  return (quoted ? 'the changes of table ' : 'changes of ') + name + since;
}

/** "run q… of marketplace-search: succeeded, ≈3 credits spent" (≈: estimated prices; the stop reason, when there is one). */
function runText_(memo) {
  const run = 'run ' + memo.runId + ' of ' + memo.pipeline;
  const r = memo.run;
  if (!r) return run + ': its outcome could not be read from the server';
  const reason = r.stopReason ? ' (' + String(r.stopReason).slice(0, 200) + ')' : '';
  return run + ': ' + r.status + reason + ', ' + (r.estimated ? '≈' : '') + plural_(r.credits, 'credit') + ' spent';
}

function describeFilters_(filters) {
  if (!filters) return '';
  return ' where ' + Object.keys(filters).map(function (c) {
    const values = filters[c];
    return c + (values.length === 1 ? ' = ' + values[0] : ' in (' + values.slice(0, 5).join(', ') + (values.length > 5 ? ', …' : '') + ')');
  }).join(' and ');
}

/** "1,200 of 5,000 rows" or, with filters, "300 rows (1,200 of 5,000 scanned)". */
function progressText_(memo) {
  if (memo.total === null) return plural_(memo.written, 'row');
  if (!memo.filters) return formatCount_(memo.written) + ' of ' + plural_(memo.total, 'row');
  return plural_(memo.written, 'row') + ' (' + formatCount_(memo.scanned) + ' of ' + formatCount_(memo.total) + ' scanned)';
}
