/**
 * Schedule this tab…: the dialog's server side. The schedules live on the server (POST, GET and
 * DELETE /schedules): at each time of its cron the server starts a new paid run of the pipeline and
 * writes the run's rows into this spreadsheet's tab through its own Google service account, which is
 * why that account must be an editor of the spreadsheet.
 */

const WEEKDAYS_ = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Everything the dialog needs: the pipelines, the active tab and the pipeline that filled it, the schedules. */
function getScheduleDialogData() {
  const ss = SpreadsheetApp.getActive();
  const sheet = ss.getActiveSheet();
  const memo = tabMemory_(sheet);
  const data = getRunSidebarData();
  return {
    pipelines: data.pipelines,
    maxCreditsPerRun: data.maxCreditsPerRun,
    tab: sheet.getName(),
    pipeline: memo && memo.source === 'run' ? memo.pipeline : null,
    timezone: ss.getSpreadsheetTimeZone(),
    schedules: scheduleRows_(),
  };
}

/**
 * Creates a schedule that refreshes a tab of this spreadsheet with a new run.
 * @example createSchedule({ pipeline: 'marketplace-search', params: { keyword: ['usb hub'] }, maxCredits: 20,
 *   frequency: 'weekly', day: 1, time: '07:30', tab: 'Results' })
 */
function createSchedule(form) {
  const f = form || {};
  // The pipeline, params and cap of each run, exactly as POST /runs takes them (Run.gs).
  const run = runBody_(f);
  const cron = scheduleCron_(f);
  const sheet = scheduleTab_(f.tab);
  const ss = SpreadsheetApp.getActive();
  const body = Object.assign(run, {
    cron: cron,
    timezone: ss.getSpreadsheetTimeZone(),
    spreadsheet: ss.getId(),
    tab: sheet.getName(),
  });
  const made = callServer_('POST', '/schedules', null, body).schedule;
  const row = scheduleRow_(made);
  return {
    message: 'Scheduled ' + made.pipeline + ' into tab "' + made.tab + '" ' + row.when + ', at most ' +
      plural_(made.maxCredits, 'credit') + ' a run' + (made.nextRunAt ? '; next run ' + row.next : '') + '.',
    schedules: scheduleRows_(),
  };
}

/** This spreadsheet's schedules, as the dialog lists them. */
function listSchedules() {
  return scheduleRows_();
}

/** Deletes one schedule; the answer carries the list without it. */
function deleteSchedule(id) {
  callServer_('DELETE', '/schedules/' + encodeURIComponent(String(id)));
  return { message: 'Schedule deleted: no more runs from it.', schedules: scheduleRows_() };
}

/**
 * The crontab line of the dialog's frequency, minute first: daily at 07:30 → "30 7 * * *", weekly on
 * Monday (1; Sunday is 0) at 07:30 → "30 7 * * 1". A typed expression goes as it is: the server checks it.
 */
function scheduleCron_(f) {
  if (f.frequency === 'cron') {
    const cron = String(f.cron || '').trim().replace(/\s+/g, ' ');
    if (!cron) throw fail_('Enter a cron expression, e.g. 30 7 * * 1-5 for 07:30 on weekdays.');
    return cron;
  }
  if (f.frequency !== 'daily' && f.frequency !== 'weekly') throw fail_('Pick how often: daily, weekly or a cron expression.');
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(String(f.time || '').trim());
  if (!m) throw fail_('Enter the time of day as HH:MM on a 24-hour clock, e.g. 07:30.');
  const minuteHour = Number(m[2]) + ' ' + Number(m[1]);
  if (f.frequency === 'daily') return minuteHour + ' * * *';
  const day = String(f.day === undefined || f.day === null ? '' : f.day);
  if (!/^[0-6]$/.test(day)) throw fail_('Pick the day of the week.');
  return minuteHour + ' * * ' + day;
}

/**
 * The tab the schedule refreshes: it must exist, and hold nothing but what Skillsync wrote, since every
 * run writes its rows there.
 */
function scheduleTab_(name) {
  const title = String(name || '').trim();
  const sheet = title ? SpreadsheetApp.getActive().getSheetByName(title) : null;
  if (!sheet) throw fail_('Tab "' + title + '" is not in this spreadsheet any more: open the tab to schedule and choose Skillsync › Schedule this tab… again.');
  // A tab the server refreshed has no memory here (its pushes replace the tab): its header note says so.
  const refreshed = sheet.getRange(1, 1).getNote().indexOf('Skillsync: scheduled refresh of ') === 0;
  if (!tabMemory_(sheet) && !refreshed && sheet.getLastRow() > 0) {
    throw fail_('Tab "' + title + '" holds data that Skillsync did not write, and every scheduled run writes ' +
      'its rows there: schedule a tab Skillsync filled (or a new, empty one) so none of your own cells are overwritten.');
  }
  return sheet;
}

function scheduleRows_() {
  const listing = callServer_('GET', '/schedules', { spreadsheet: SpreadsheetApp.getActive().getId() });
  return listing.schedules.map(scheduleRow_);
}

/** One schedule as the dialog lists it; times in the spreadsheet's own zone. */
function scheduleRow_(s) {
  const zone = SpreadsheetApp.getActive().getSpreadsheetTimeZone();
  let next = s.nextRunAt ? formatTime_(new Date(s.nextRunAt)) : 'none';
  if (s.paused) next = 'paused';
  return {
    id: s.id,
    pipeline: s.pipeline,
    tab: s.tab + (s.mode === 'append' ? ' (rows appended)' : ''),
    when: describeCron_(s.cron) + (s.timezone && s.timezone !== zone ? ' (' + s.timezone + ')' : ''),
    next: next,
    last: lastScheduledRun_(s.last),
    failed: !!s.last && ['succeeded', 'warnings'].indexOf(s.last.outcome) < 0,
  };
}

/**
 * A cron in words where it is daily or weekly at one time: "30 7 * * *" → "daily at 07:30",
 * "0 30 7 * * 1" → "weekly on Monday at 07:30", "15 30 7 * * *" → "daily at 07:30:15"; any other
 * as "cron <expression>".
 */
function describeCron_(cron) {
  const text = String(cron).trim().replace(/\s+/g, ' ');
  const f = text.split(' ');
  const number = function (v, below) { return /^\d{1,2}$/.test(v) && Number(v) < below ? Number(v) : null; };
  const s = f.length === 6 ? number(f.shift(), 60) : 0;
  const m = number(f[0], 60);
  const h = number(f[1], 24);
  if (f.length !== 5 || s === null || m === null || h === null || f[2] !== '*' || f[3] !== '*') return 'cron ' + text;
  const two = function (n) { return (n < 10 ? '0' : '') + n; };
  const at = 'at ' + two(h) + ':' + two(m) + (s ? ':' + two(s) : '');
  if (f[4] === '*') return 'daily ' + at;
  if (/^[0-7]$/.test(f[4])) return 'weekly on ' + WEEKDAYS_[Number(f[4]) % 7] + ' ' + at;
  return 'cron ' + text;
}

/** "succeeded · ≈12 credits · 340 rows · 2024-05-01 07:31" (≈: estimated prices); for a failure its note instead of the counts. */
function lastScheduledRun_(last) {
  if (!last) return 'not run yet';
  const parts = [last.outcome];
  const ok = last.outcome === 'succeeded' || last.outcome === 'warnings';
  if (!ok && last.note) parts.push(last.note);
  else {
    if (last.credits !== null && last.credits !== undefined)
      parts.push((last.creditsEstimated ? '≈' : '') + plural_(last.credits, 'credit'));
    if (last.rows !== null && last.rows !== undefined) parts.push(plural_(last.rows, 'row'));
    if (last.note) parts.push(last.note);
  }
  const at = last.finishedAt || last.tickAt;
  if (at) parts.push(formatTime_(new Date(at)));
  return parts.join(' · ');
}
