/**
 * The follow-up of loads too large for one execution: a one-off time-driven trigger runs
 * skillsyncContinueLoads about a minute later, which continues every unfinished tab where it stopped
 * and schedules itself again while some remain.
 */

const CONTINUE_HANDLER_ = 'skillsyncContinueLoads';
const CONTINUE_AFTER_MS_ = 60 * 1000;

/** Trigger handler (time-driven). There is no user interface here: progress goes to the header cell's note. */
function skillsyncContinueLoads() {
  deleteContinuationTriggers_();
  let again = false;
  const pending = rememberedTabs_().filter(function (t) { return !t.memo.complete && t.memo.auto; });
  for (let i = 0; i < pending.length; i++) {
    if (elapsedMs_() > LOAD_BUDGET_MS_) {
      again = true;
      break;
    }
    const sheet = sheetById_(pending[i].sheetId);
    if (!sheet) {
      forgetTab_(pending[i].sheetId);
      continue;
    }
    try {
      again = continueTab_(sheet) || again;
    } catch (err) {
      if (err.reason === 'busy') {
        again = true;
        continue;
      }
      // runLoad_ has already noted the failure on the tab; the log line is for the Executions page.
      console.warn('Skillsync: loading tab "' + sheet.getName() + '" stopped: ' + messageOf_(err));
    }
  }
  if (again) scheduleContinuation_();
}

/** Continues one tab under the lock; true when it is still unfinished afterwards. */
function continueTab_(sheet) {
  return withDocumentLock_('continuing tab "' + sheet.getName() + '"', function () {
    // Read again under the lock: a Refresh this tab may have finished it meanwhile.
    const memo = tabMemory_(sheet);
    if (!memo || memo.complete || !memo.auto) return false;
    try {
      fillTab_(sheet, memo);
    } catch (err) {
      noteFailure_(sheet, memo, err);
      throw err;
    }
    setTabNote_(sheet, memo);
    return !memo.complete;
  });
}

/** One follow-up trigger at most; false when none can be made (the user then continues by hand). */
function scheduleContinuation_() {
  try {
    const exists = ScriptApp.getProjectTriggers().some(function (t) { return t.getHandlerFunction() === CONTINUE_HANDLER_; });
    if (!exists) ScriptApp.newTrigger(CONTINUE_HANDLER_).timeBased().after(CONTINUE_AFTER_MS_).create();
    return true;
  } catch (err) {
    console.warn('Skillsync: could not schedule the follow-up run: ' + messageOf_(err));
    return false;
  }
}

function deleteContinuationTriggers_() {
  ScriptApp.getProjectTriggers().forEach(function (t) {
    if (t.getHandlerFunction() === CONTINUE_HANDLER_) ScriptApp.deleteTrigger(t);
  });
}
