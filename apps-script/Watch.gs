/**
 * Watch these rows…: a watch (POST /watches) on the keys selected in one column of a tab Skillsync
 * filled. The tab's memory says which table filled it; the server checks the rest (the table keeps
 * history, the columns are its own, the condition can apply) and says what is wrong, writing nothing.
 * Making a watch spends nothing: it reads what later loads write.
 */

/** The server's limit on a watch's keys from a selection (the CLI takes more from a file or a query). */
const MAX_WATCH_KEYS_ = 10000;
/** The server takes bodies of at most 64 KB; the rest is room for the other settings. */
const MAX_WATCH_BODY_BYTES_ = 60000;
/** What a `<table>_changes` view holds besides the table's key (engine/watch/watch-table.ts). */
const CHANGE_VIEW_COLUMNS_ = ['change', 'column_name', 'old_value', 'new_value', 'load_id', 'changed_at'];
/** What a history table's rows carry besides their content: not columns a watch can look at. */
const NOT_CONTENT_COLUMNS_ = ['run_id', 'loaded_at', 'load_id', 'valid_from', 'valid_to', 'version_hash', 'children_hash'];

/** Menu item: the selection is checked first, so a wrong one is said at once, before any window opens. */
function showWatchDialog() {
  const ui = SpreadsheetApp.getUi();
  try {
    watchSelection_();
  } catch (err) {
    ui.alert(TITLE_, messageOf_(err), ui.ButtonSet.OK);
    return;
  }
  ui.showModalDialog(page_('WatchDialog').setWidth(560).setHeight(640), 'Skillsync: watch these rows');
}

/**
 * What the dialog shows: the table, the keys selected (how many, from which column), the columns
 * a watch can look at. The selected column must be the table's key when the server's tables say it.
 */
function getWatchDialogData() {
  const s = watchSelection_();
  const info = watchTableInfo_(s.table);
  checkKeyColumn_(s, info);
  return {
    table: s.table,
    tab: s.sheet.getName(),
    range: s.range,
    column: s.header,
    keys: s.keys.length,
    sample: s.keys.slice(0, 5),
    columns: info.columns,
  };
}

/**
 * Creates the watch on the selected keys (read again: the dialog is modal, so it is the selection
 * the dialog was opened on). Answers the server's warnings beside the message.
 * @example createWatch({ name: 'lapsed', columns: ['status'], condition: 'to', value: 'Inactive',
 *   email: 'ip@example.com', url: '', digest: 'load' })
 */
function createWatch(form) {
  const s = watchSelection_();
  checkKeyColumn_(s, watchTableInfo_(s.table));
  const body = watchBody_(form || {}, s);
  const made = callServer_('POST', '/watches', null, body);
  const warnings = (made.warnings || []).map(String);
  const backfilled = Number(made.backfilled || 0);
  return {
    message: 'Watch "' + made.watch.name + '" created on ' + plural_(s.keys.length, 'key') + ' of table ' +
      made.watch.table + ': ' + conditionText_(body) + '; ' + deliveryText_(body.notify) + '.' +
      (backfilled ? ' ' + plural_(backfilled, 'alert') + ' from changes already loaded.' : ''),
    warnings: warnings,
  };
}

/**
 * The selection as a watch takes it: one column of a tab Skillsync filled, its non-blank values
 * below the frozen header, trimmed, without duplicates. { sheet, table, header, keys, range }.
 */
function watchSelection_() {
  const ss = SpreadsheetApp.getActive();
  const sheet = ss.getActiveSheet();
  const table = tableOfTab_(sheet);
  const list = ss.getActiveRangeList();
  const ranges = list ? list.getRanges() : [ss.getActiveRange()];
  const column = ranges[0].getColumn();
  if (ranges.some(function (r) { return r.getNumColumns() !== 1 || r.getColumn() !== column; })) {
    throw fail_('Select cells of one column only: the keys to watch (e.g. the publication_number column), ' +
      'then choose Skillsync › Watch these rows… again.');
  }
  const keys = [];
  const seen = {};
  ranges.forEach(function (range) {
    const top = Math.max(range.getRow(), sheet.getFrozenRows() + 1);
    const bottom = Math.min(range.getLastRow(), sheet.getLastRow());
    if (bottom < top) return;
    sheet.getRange(top, column, bottom - top + 1, 1).getValues().forEach(function (row) {
      const key = cellText_(row[0]);
      if (key !== '' && !seen[key]) {
        seen[key] = true;
        keys.push(key);
      }
    });
  });
  if (!keys.length) throw fail_('The selection holds no keys: select the cells of the key column to watch (the header may be included).');
  if (keys.length > MAX_WATCH_KEYS_) {
    throw fail_('The selection holds ' + formatCount_(keys.length) + ' different keys; a watch made here takes at most ' +
      formatCount_(MAX_WATCH_KEYS_) + ' (skillsync watch add --keys @FILE takes more).');
  }
  return {
    sheet: sheet,
    table: table,
    header: cellText_(sheet.getRange(1, column).getValues()[0][0]),
    keys: keys,
    range: ranges.map(function (r) { return r.getA1Notation(); }).join(', '),
  };
}

/**
 * The table a tab's rows are of, from its memory: a tab of a history table's current rows
 * (`<table>_current`) watches the table itself. A tab Skillsync did not fill names no table.
 */
function tableOfTab_(sheet) {
  if (isAlertsTab_(sheet)) {
    throw fail_('Tab "' + sheet.getName() + '" lists alerts of several tables: select the keys to watch in a tab of one ' +
      'table (Skillsync › Load a table…).');
  }
  const memo = tabMemory_(sheet);
  if (!memo) {
    throw fail_('Tab "' + sheet.getName() + '" was not filled by Skillsync, so which table its rows are of is unknown. ' +
      'Select the keys in a tab that Skillsync › Load a table… or Run a pipeline… filled.');
  }
  const m = /^(.+)_current$/.exec(memo.table);
  return m && memo.source === 'load' ? m[1] : memo.table;
}

/**
 * From the server's tables: the key of a history table (its `<table>_changes` view's columns that are
 * not the change's own; null when the server does not list one, e.g. a built-in change view) and the
 * columns a watch can look at.
 */
function watchTableInfo_(table) {
  const tables = callServer_('GET', '/tables').tables;
  const byName = {};
  tables.forEach(function (t) { byName[t.name] = t; });
  const t = byName[table];
  if (!t) throw fail_('The server has no table "' + table + '" any more (see Skillsync › Load a table…).');
  const changes = byName[table + '_changes'];
  const key = changes
    ? changes.columns.map(function (c) { return c.name; }).filter(function (c) { return CHANGE_VIEW_COLUMNS_.indexOf(c) < 0; })
    : null;
  const columns = t.columns
    .map(function (c) { return c.name; })
    .filter(function (c) { return NOT_CONTENT_COLUMNS_.indexOf(c) < 0 && (!key || key.indexOf(c) < 0); });
  return { key: key, columns: columns };
}

/** A watch names keys by the table's key: a selection of another column would watch nothing. */
function checkKeyColumn_(s, info) {
  if (!info.key) return;
  if (info.key.length !== 1) {
    throw fail_('The key of table ' + s.table + ' has several columns (' + info.key.join(', ') + '): a watch on it ' +
      'is made with skillsync watch add --keys-sql, not from one selected column.');
  }
  if (s.header !== info.key[0]) {
    throw fail_('Column "' + s.header + '" of tab "' + s.sheet.getName() + '" is not the key of table ' + s.table +
      ': select cells of its ' + info.key[0] + ' column.');
  }
}

/** The body of POST /watches from the dialog's form and the selected keys. */
function watchBody_(f, s) {
  const name = String(f.name || '').trim();
  if (!name) throw fail_('Name the watch (e.g. lapsed-patents): its alerts and skillsync watch rm use the name.');
  const body = { name: name, table: s.table, keys: { list: s.keys } };
  const columns = listOf_(f.columns || []);
  if (columns.length) body.columns = columns;
  const when = watchWhen_(f);
  if (when) body.when = when;
  body.notify = watchNotify_(f);
  const size = utf8Length_(JSON.stringify(body));
  if (size > MAX_WATCH_BODY_BYTES_) {
    throw fail_('These ' + formatCount_(s.keys.length) + ' keys are too many for one request (' + formatCount_(size) +
      ' bytes; the server takes at most 64 KB): select fewer, or make the watch with skillsync watch add --keys @FILE.');
  }
  return body;
}

/** The form's condition as `when`: to/from a value, fell/rose by an amount (10% or 5), appeared; none: any change. */
function watchWhen_(f) {
  const condition = String(f.condition || 'any');
  const value = String(f.value === undefined || f.value === null ? '' : f.value).trim();
  if (condition === 'any') return null;
  if (condition === 'appeared') return { appeared: true };
  if (condition === 'to' || condition === 'from') {
    if (!value) throw fail_('Enter the value the column changes ' + condition + ' (e.g. Inactive).');
    const when = {};
    when[condition] = value;
    return when;
  }
  if (condition === 'fell_by' || condition === 'rose_by') {
    const amount = value.replace(/\s+/g, '');
    if (!/^\d+(\.\d+)?%?$/.test(amount) || !(parseFloat(amount) > 0)) {
      throw fail_('Enter by how much it ' + (condition === 'fell_by' ? 'falls' : 'rises') + ': a percentage such as 10% ' +
        'or an amount such as 5 (in the column\'s unit)' + (value ? ', not "' + value.slice(0, 40) + '"' : '') + '.');
    }
    const by = {};
    by[condition] = amount;
    return by;
  }
  throw fail_('Pick when to alert: any change, changes to or from a value, falls or rises by an amount, or appears.');
}

/** Where alerts go: e-mail addresses (one per line or comma-separated), a webhook, and how they are grouped. */
function watchNotify_(f) {
  const notify = {};
  const url = String(f.url || '').trim();
  if (url) notify.url = url;
  const email = listOf_(String(f.email || '').split(/[\n,;]/));
  if (email.length) notify.email = email;
  const digest = String(f.digest || 'load');
  if (['load', 'day', 'none'].indexOf(digest) < 0) throw fail_('Pick how alerts are grouped: per load, per day, or one message each.');
  notify.digest = digest;
  return notify;
}

/** "when status changes to Inactive", "when price falls by 10%", "when any column changes". */
function conditionText_(body) {
  const w = body.when || {};
  const what = body.columns ? body.columns.join(', ') : 'any column';
  if (w.appeared) return 'when a key appears' + (body.columns ? ' in ' + what : '');
  if (w.to !== undefined) return 'when ' + what + ' changes to ' + w.to;
  if (w.from !== undefined) return 'when ' + what + ' changes from ' + w.from;
  if (w.fell_by !== undefined) return 'when ' + what + ' falls by ' + w.fell_by;
  if (w.rose_by !== undefined) return 'when ' + what + ' rises by ' + w.rose_by;
  return 'when ' + what + ' changes';
}

/** Where alerts go, never the webhook's URL itself (it may carry a token). */
function deliveryText_(notify) {
  const to = [];
  if (notify.email) to.push(formatCount_(notify.email.length) + (notify.email.length === 1 ? ' e-mail address' : ' e-mail addresses'));
  if (notify.url) to.push('the webhook');
  const grouped = { load: 'one message per load', day: 'one message per day', none: 'one message per alert' }[notify.digest];
  if (!to.length) return 'alerts are recorded (Skillsync › Show alerts), sent nowhere';
  return grouped + ' to ' + to.join(' and ');
}
