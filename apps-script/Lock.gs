/**
 * One load or refresh at a time per spreadsheet (LockService's document lock), so two executions never
 * write the same tabs at once. What holds the lock is noted in Document Properties for the message.
 */

const LOCK_WAIT_MS_ = 3000;
const BUSY_PROPERTY_ = 'skillsync.busy';

/** Runs fn holding the document lock, or throws a readable error (reason 'busy') when another execution has it. */
function withDocumentLock_(what, fn) {
  const lock = LockService.getDocumentLock();
  if (!lock || !lock.tryLock(LOCK_WAIT_MS_)) {
    const busy = readJsonProperty_(PropertiesService.getDocumentProperties(), BUSY_PROPERTY_);
    const since = busy ? ' (' + busy.what + ', since ' + formatTime_(new Date(busy.since)) + ')' : '';
    throw fail_('Skillsync is already loading into this spreadsheet' + since + ', so ' + what + ' was not started: ' +
      'two loads at once would write the same tabs. Try again when it has finished.', 'busy');
  }
  const props = PropertiesService.getDocumentProperties();
  props.setProperty(BUSY_PROPERTY_, JSON.stringify({ what: what, since: new Date().toISOString() }));
  try {
    return fn();
  } finally {
    props.deleteProperty(BUSY_PROPERTY_);
    lock.releaseLock();
  }
}
