/**
 * Show alerts: the tab "Alerts" lists what the watches found (GET /alerts), newest first, and an
 * hourly time-driven trigger of this script keeps it current. The server's sheet schedules are not
 * used: they start a paid pipeline run and write that run's rows, while alerts are a free read of
 * the warehouse that the add-on can make itself, as the user who asked for the tab.
 */

const ALERTS_TAB_ = 'Alerts';
/** Which tab is the Alerts tab (its id, stable across renames) and how its last refresh went. */
const ALERTS_PROPERTY_ = 'skillsync.alerts';
const ALERTS_HANDLER_ = 'skillsyncRefreshAlerts';
const ALERTS_EVERY_HOURS_ = 1;
/** The tab shows the alerts of this many days: older ones are history (skillsync alerts --since lists them). */
const ALERTS_DAYS_ = 30;
/** The server's largest page of alerts. */
const ALERTS_PAGE_ = 10000;
/** The most pages one refresh reads (and so the most rows the tab holds). */
const ALERTS_MAX_PAGES_ = 5;
const ALERTS_HEADER_ = ['changed at', 'watch', 'table', 'key', 'change', 'column', 'old', 'new', 'load'];

/** Menu item: writes (or refreshes) the Alerts tab and makes sure the hourly refresh is set up. */
function showAlerts() {
  const ss = SpreadsheetApp.getActive();
  const ui = SpreadsheetApp.getUi();
  try {
    // Set up first, so the tab's note can say that it refreshes by itself.
    const hourly = scheduleAlertsRefresh_();
    const result = refreshAlerts_(true);
    ss.setActiveSheet(result.sheet);
    ss.toast(result.message + (hourly ? ' It refreshes every hour.' : ' It could not be set to refresh by itself ' +
      '(Apps Script refused a trigger): choose Skillsync › Show alerts again to refresh it.'), TITLE_, 10);
    return result.message;
  } catch (err) {
    // No tab to keep current (e.g. "Alerts" is a tab of the user's own): no trigger either.
    if (!alertsSheet_()) deleteAlertsTriggers_();
    ui.alert(TITLE_, messageOf_(err), ui.ButtonSet.OK);
    return null;
  }
}

/**
 * Trigger handler (hourly). No user interface here: a failure goes to the tab's note, which keeps
 * the rows of the last refresh. With the tab deleted, the trigger removes itself.
 */
function skillsyncRefreshAlerts() {
  if (!alertsSheet_()) {
    deleteAlertsTriggers_();
    PropertiesService.getDocumentProperties().deleteProperty(ALERTS_PROPERTY_);
    return;
  }
  try {
    refreshAlerts_(false);
  } catch (err) {
    // A load holding the lock, the server down: the next hour tries again.
    console.warn('Skillsync: refreshing the Alerts tab stopped: ' + messageOf_(err));
  }
}

/** The Alerts tab, found by its id (the user may have renamed it), or null. */
function alertsSheet_() {
  const memo = readJsonProperty_(PropertiesService.getDocumentProperties(), ALERTS_PROPERTY_);
  return memo ? sheetById_(memo.sheetId) : null;
}

function isAlertsTab_(sheet) {
  const found = alertsSheet_();
  return !!found && found.getSheetId() === sheet.getSheetId();
}

/**
 * Reads the alerts and rewrites the tab with them, under the document lock (a load writing tabs at
 * the same moment would be refused the other way round). `create`: make the tab when missing.
 */
function refreshAlerts_(create) {
  return withDocumentLock_('refreshing the Alerts tab', function () {
    const sheet = alertsSheet_() || (create ? newAlertsTab_() : null);
    if (!sheet) throw fail_('The Alerts tab is gone: choose Skillsync › Show alerts to write it again.');
    const since = alertsSince_();
    let read;
    try {
      read = readAlerts_(since);
    } catch (err) {
      noteAlertsFailure_(sheet, err);
      throw err;
    }
    const rows = read.alerts.map(alertRow_);
    writeHeader_(sheet, ALERTS_HEADER_);
    writeRows_(sheet, 2, rows, ALERTS_HEADER_.length);
    clearOutside_(sheet, 1 + rows.length, ALERTS_HEADER_.length);
    const memo = { sheetId: sheet.getSheetId(), since: since, rows: rows.length, cut: read.cut, refreshedAt: new Date().toISOString() };
    PropertiesService.getDocumentProperties().setProperty(ALERTS_PROPERTY_, JSON.stringify(memo));
    sheet.getRange(1, 1).setNote(alertsNote_(memo));
    SpreadsheetApp.flush();
    return { sheet: sheet, rows: rows.length, message: 'Tab "' + sheet.getName() + '": ' + plural_(rows.length, 'alert') + ' since ' + since + '.' };
  });
}

/** A new tab "Alerts"; one of the user's own by that name is never written over. */
function newAlertsTab_() {
  const ss = SpreadsheetApp.getActive();
  const existing = ss.getSheetByName(ALERTS_TAB_);
  if (existing && (existing.getLastRow() > 0 || tabMemory_(existing))) {
    throw fail_('Tab "' + ALERTS_TAB_ + '" already holds other data. Rename that tab (or clear it), then choose ' +
      'Skillsync › Show alerts again, so none of your own cells are overwritten.');
  }
  const sheet = existing || targetTab_(ALERTS_TAB_).sheet;
  PropertiesService.getDocumentProperties().setProperty(ALERTS_PROPERTY_, JSON.stringify({ sheetId: sheet.getSheetId() }));
  return sheet;
}

/** The first day the tab shows (YYYY-MM-DD, UTC as the server reads it). */
function alertsSince_() {
  return new Date(Date.now() - ALERTS_DAYS_ * 24 * 3600 * 1000).toISOString().slice(0, 10);
}

/**
 * The alerts since `since`, newest first. The server lists them oldest first, at most a page at a
 * time: the next page asks for the loads from the last one seen on (`since` a load id; the ones
 * already read are skipped). `cut`: there were more than the pages this refresh reads.
 */
function readAlerts_(since) {
  const seen = {};
  const alerts = [];
  let from = since;
  for (let page = 0; page < ALERTS_MAX_PAGES_; page++) {
    const got = callServer_('GET', '/alerts', { since: from, limit: ALERTS_PAGE_ }).alerts;
    let fresh = 0;
    let lastLoad = 0;
    got.forEach(function (a) {
      lastLoad = Math.max(lastLoad, Number(a.loadId));
      if (seen[a.id]) return;
      seen[a.id] = true;
      alerts.push(a);
      fresh++;
    });
    if (got.length < ALERTS_PAGE_) return { alerts: newestFirst_(alerts), cut: false };
    // One load with more alerts than a page: what is beyond it cannot be asked for.
    if (!fresh) break;
    from = String(lastLoad - 1);
  }
  return { alerts: newestFirst_(alerts), cut: true };
}

function newestFirst_(alerts) {
  return alerts.slice().sort(function (a, b) {
    if (a.changedAt !== b.changedAt) return a.changedAt < b.changedAt ? 1 : -1;
    if (a.loadId !== b.loadId) return b.loadId - a.loadId;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  });
}

/** One alert as the tab's row: changed at (the spreadsheet's zone), watch, table, key, change, column, old, new, load. */
function alertRow_(a) {
  const zone = SpreadsheetApp.getActive().getSpreadsheetTimeZone() || Session.getScriptTimeZone();
  const at = Utilities.formatDate(new Date(a.changedAt), zone, 'yyyy-MM-dd HH:mm:ss');
  return [at, a.watch, a.table, a.key, a.change, a.column, a.old, a.new, a.loadId].map(toCell_);
}

/** "Skillsync: alerts since 2026-10-30 (the last 30 days), newest first / 12 alerts, refreshed … (every hour)". */
function alertsNote_(memo) {
  const lines = ['Skillsync: alerts of every watch since ' + memo.since + ' (the last ' + ALERTS_DAYS_ + ' days), newest first'];
  lines.push(plural_(memo.rows, 'alert') + ', refreshed ' + formatTime_(new Date(memo.refreshedAt)) +
    (alertsTriggerExists_() ? ' (refreshes every hour)' : ' (choose Skillsync › Show alerts to refresh)'));
  if (memo.cut) lines.push('more alerts than the tab holds: the newest are missing; skillsync alerts --since lists them all');
  if (memo.error) lines.push('refresh failed ' + formatTime_(new Date(memo.failedAt)) + ': ' + memo.error);
  return lines.join('\n');
}

/** A failed refresh: the tab keeps its rows, its note says when and why. */
function noteAlertsFailure_(sheet, err) {
  const props = PropertiesService.getDocumentProperties();
  const memo = readJsonProperty_(props, ALERTS_PROPERTY_) || { sheetId: sheet.getSheetId() };
  memo.error = messageOf_(err);
  memo.failedAt = new Date().toISOString();
  props.setProperty(ALERTS_PROPERTY_, JSON.stringify(memo));
  if (memo.refreshedAt) sheet.getRange(1, 1).setNote(alertsNote_(memo));
  else sheet.getRange(1, 1).setNote('Skillsync: alerts\nfailed ' + formatTime_(new Date(memo.failedAt)) + ': ' + memo.error);
}

/** One hourly trigger at most; false when Apps Script refuses one. */
function scheduleAlertsRefresh_() {
  try {
    if (!alertsTriggerExists_()) ScriptApp.newTrigger(ALERTS_HANDLER_).timeBased().everyHours(ALERTS_EVERY_HOURS_).create();
    return true;
  } catch (err) {
    console.warn('Skillsync: could not set the Alerts tab to refresh every hour: ' + messageOf_(err));
    return false;
  }
}

function alertsTriggerExists_() {
  return ScriptApp.getProjectTriggers().some(function (t) { return t.getHandlerFunction() === ALERTS_HANDLER_; });
}

function deleteAlertsTriggers_() {
  ScriptApp.getProjectTriggers().forEach(function (t) {
    if (t.getHandlerFunction() === ALERTS_HANDLER_) ScriptApp.deleteTrigger(t);
  });
}
