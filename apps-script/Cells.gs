/**
 * Writing rows into a tab: values converted for setValues, the grid grown within Google's limits,
 * the header written and frozen, and what an older, longer or wider content left cleared.
 */

/** Google Sheets' limits: characters in a cell, cells in a spreadsheet (all tabs). */
const MAX_CELL_CHARS_ = 50000;
const MAX_SPREADSHEET_CELLS_ = 10000000;
const TRUNCATED_ = '…[truncated]';

/**
 * One JSON value from the server as a cell. Text is written behind an apostrophe so Sheets keeps it
 * exactly ("00123", "$12.99", "2024-05-01", "=x" stay text, not numbers, dates or formulas).
 * @example toCell_(null) // ''    toCell_('=1+1') // "'=1+1"    toCell_(4.5) // 4.5
 */
function toCell_(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number' && isFinite(v)) return v;
  let text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  if (text === '') return '';
  // The apostrophe counts too.
  if (text.length + 1 > MAX_CELL_CHARS_) text = text.slice(0, MAX_CELL_CHARS_ - 1 - TRUNCATED_.length) + TRUNCATED_;
  return "'" + text;
}

/** The cell's value as text, the way a param wants it (numbers as stored: 4711, not 4,711). */
function cellText_(v) {
  if (v === null || v === undefined) return '';
  if (isDate_(v)) return Utilities.formatDate(v, SpreadsheetApp.getActive().getSpreadsheetTimeZone(), 'yyyy-MM-dd');
  return String(v).trim();
}

/** Writes the header in row 1, bold and frozen. */
function writeHeader_(sheet, header) {
  ensureGrid_(sheet, 1, header.length);
  sheet.getRange(1, 1, 1, header.length).setValues([header.map(toCell_)]).setFontWeight('bold');
  sheet.setFrozenRows(1);
}

/** Writes a block of rows (already cells) starting at `row`, growing the grid first. */
function writeRows_(sheet, row, values, width) {
  if (!values.length) return;
  ensureGrid_(sheet, row + values.length - 1, width);
  sheet.getRange(row, 1, values.length, width).setValues(values);
}

/** Clears what lies below `lastRow` or right of `width` (left over from an older content). */
function clearOutside_(sheet, lastRow, width) {
  const rows = sheet.getLastRow();
  const cols = sheet.getLastColumn();
  if (rows > lastRow) sheet.getRange(lastRow + 1, 1, rows - lastRow, Math.max(cols, 1)).clearContent();
  if (cols > width) sheet.getRange(1, width + 1, Math.max(Math.min(rows, lastRow), 1), cols - width).clearContent();
}

/** Grows the tab to at least rows × cols, refusing (before writing) to pass the spreadsheet's cell limit. */
function ensureGrid_(sheet, rows, cols) {
  const maxRows = sheet.getMaxRows();
  const maxCols = sheet.getMaxColumns();
  const addRows = Math.max(0, rows - maxRows);
  const addCols = Math.max(0, cols - maxCols);
  if (!addRows && !addCols) return;
  const added = addCols * maxRows + addRows * Math.max(maxCols, cols);
  const used = spreadsheetCells_();
  if (used + added > MAX_SPREADSHEET_CELLS_) {
    throw fail_('Tab "' + sheet.getName() + '" would need ' + formatCount_(added) + ' more cells, which takes the ' +
      'spreadsheet over Google Sheets\' limit of ' + formatCount_(MAX_SPREADSHEET_CELLS_) + ' cells (it has ' +
      formatCount_(used) + '). Load fewer columns (Skillsync › Load a table…), filter the rows, or delete unused tabs.');
  }
  if (addCols) sheet.insertColumnsAfter(maxCols, addCols);
  if (addRows) sheet.insertRowsAfter(maxRows, addRows);
}

function spreadsheetCells_() {
  return SpreadsheetApp.getActive().getSheets().reduce(function (sum, s) {
    return sum + s.getMaxRows() * s.getMaxColumns();
  }, 0);
}
