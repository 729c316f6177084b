/**
 * Refresh this tab: repeats the load that filled the active tab (same table, columns and filters; for
 * a tab of a history table's changes, the same changes as they stand now: "made by the latest load"
 * is then the latest load at the time of the refresh). A tab whose load is unfinished is continued
 * where it stopped instead of started over; a refresh that fails before its first page keeps the
 * tab's rows, and the header cell's note says why. The Alerts tab is refreshed as Show alerts does.
 */

/** Menu item. */
function refreshThisTab() {
  const ss = SpreadsheetApp.getActive();
  const ui = SpreadsheetApp.getUi();
  const sheet = ss.getActiveSheet();
  try {
    if (isAlertsTab_(sheet)) return showAlerts();
    const memo = tabMemory_(sheet);
    if (!memo) {
      throw fail_('Tab "' + sheet.getName() + '" was not filled by Skillsync, so there is nothing to refresh. ' +
        'Use Skillsync › Load a table… (or Run a pipeline…) to fill a tab.');
    }
    const result = runLoad_(sheet, memo.complete ? restartMemo_(memo) : memo);
    if (result.complete) ss.toast(result.message, TITLE_, 10);
    else ui.alert(TITLE_, result.message, ui.ButtonSet.OK);
    return result;
  } catch (err) {
    ui.alert(TITLE_, messageOf_(err), ui.ButtonSet.OK);
    return null;
  }
}
