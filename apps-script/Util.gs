/**
 * Small helpers shared by the Skillsync add-on.
 *
 * Plain Apps Script (V8 runtime): no modules, every .gs file shares one global scope, and global
 * code runs again at the start of every execution. Names ending in "_" are private: menus,
 * sidebars (google.script.run) and triggers can only call the others.
 */

/** When this execution started (global code is evaluated afresh by every execution). */
const EXECUTION_STARTED_ = Date.now();
const TITLE_ = 'Skillsync';

/** Milliseconds this execution has used so far; Apps Script stops it after 6 minutes. */
function elapsedMs_() {
  return Date.now() - EXECUTION_STARTED_;
}

/** An error whose message is written for the user and is shown as it is. */
function fail_(message, reason) {
  const err = new Error(message);
  err.name = 'SkillsyncError';
  if (reason) err.reason = reason;
  return err;
}

/** The text to show for any error: ours as written, anything else said to come from Apps Script. */
function messageOf_(err) {
  if (err && err.name === 'SkillsyncError') return err.message;
  const text = err && err.message ? err.message : String(err);
  return 'Skillsync stopped on an unexpected error from Apps Script: ' + text.replace(/^Exception: /, '');
}

/** 12345 → "12,345". */
function formatCount_(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function plural_(n, word) {
  return formatCount_(n) + ' ' + word + (n === 1 ? '' : 's');
}

function isDate_(v) {
  return Object.prototype.toString.call(v) === '[object Date]';
}

/** A date as the spreadsheet's own clock shows it, e.g. "2024-05-01 14:03". */
function formatTime_(date) {
  const zone = SpreadsheetApp.getActive().getSpreadsheetTimeZone() || Session.getScriptTimeZone();
  return Utilities.formatDate(date, zone, 'yyyy-MM-dd HH:mm');
}

/** Bytes of a text once UTF-8 encoded (what the server's 64 KB body limit counts). */
function utf8Length_(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function readJsonProperty_(props, key) {
  const text = props.getProperty(key);
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch (e) {
    return null;
  }
}

/** Values of a form field: one per line (textarea) or a list, trimmed, blanks dropped. */
function listOf_(value) {
  const items = Array.isArray(value) ? value : String(value === undefined || value === null ? '' : value).split(/\r?\n/);
  return items.map(function (v) { return String(v).trim(); }).filter(function (v) { return v !== ''; });
}
