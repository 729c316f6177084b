/**
 * Settings: the server's URL and the shared secret, kept in the user's own User Properties.
 * They are never written to a cell, to Document Properties (which every editor can read) or to a log,
 * and the secret never goes back to the browser.
 */

const SERVER_URL_PROPERTY_ = 'skillsync.serverUrl';
const SECRET_PROPERTY_ = 'skillsync.secret';
/** The server refuses to start with a shorter SKILLSYNC_SERVER_SECRET. */
const MIN_SECRET_LENGTH_ = 32;

/** For the Settings dialog: the URL, and only whether a secret is saved. */
function getSettings() {
  const s = readSettings_();
  return { serverUrl: s.serverUrl, hasSecret: s.secret !== '' };
}

/**
 * Saves the URL and, when one is typed, the secret (an empty secret field keeps the saved one).
 * @example saveSettings({ serverUrl: 'https://skillsync.example.com', secret: '…64 hex characters…' })
 */
function saveSettings(form) {
  const serverUrl = normaliseServerUrl_(form && form.serverUrl);
  const secret = String((form && form.secret) || '').trim();
  const props = PropertiesService.getUserProperties();
  if (secret) checkSecret_(secret);
  else if (!props.getProperty(SECRET_PROPERTY_)) {
    throw fail_('Enter the shared secret: the value of SKILLSYNC_SERVER_SECRET on the server.');
  }
  const values = {};
  values[SERVER_URL_PROPERTY_] = serverUrl;
  if (secret) values[SECRET_PROPERTY_] = secret;
  props.setProperties(values);
  return { serverUrl: serverUrl, hasSecret: true, message: 'Saved for your Google account only.' };
}

/** Removes both settings (e.g. on a shared computer account). */
function forgetSettings() {
  const props = PropertiesService.getUserProperties();
  props.deleteProperty(SERVER_URL_PROPERTY_);
  props.deleteProperty(SECRET_PROPERTY_);
  return { serverUrl: '', hasSecret: false, message: 'The server URL and the secret are forgotten.' };
}

/**
 * Asks the server for its budget and pipelines with signed requests, using the form's values when given
 * (so a connection can be tried before saving) and the saved ones otherwise. Never throws.
 */
function testConnection(form) {
  try {
    const saved = readSettings_();
    const typedUrl = form && String(form.serverUrl || '').trim();
    const typedSecret = form && String(form.secret || '').trim();
    const settings = {
      serverUrl: typedUrl ? normaliseServerUrl_(typedUrl) : saved.serverUrl,
      secret: typedSecret || saved.secret,
    };
    if (typedSecret) checkSecret_(typedSecret);
    checkComplete_(settings);
    const budget = callServer_('GET', '/budget', null, undefined, settings);
    const listing = callServer_('GET', '/pipelines', null, undefined, settings);
    const spent = budget.daily ? budget.daily.spent : 0;
    return {
      ok: true,
      message: 'Connected to ' + settings.serverUrl + ': ' + plural_(listing.pipelines.length, 'pipeline') +
        ', ' + plural_(spent, 'credit') + ' spent today, at most ' + plural_(budget.maxCreditsPerRun, 'credit') +
        ' per run.',
    };
  } catch (err) {
    return { ok: false, message: messageOf_(err) };
  }
}

function readSettings_() {
  const props = PropertiesService.getUserProperties();
  return {
    serverUrl: props.getProperty(SERVER_URL_PROPERTY_) || '',
    secret: props.getProperty(SECRET_PROPERTY_) || '',
  };
}

/** The saved settings, or a message saying how to set them. */
function requireSettings_() {
  const s = readSettings_();
  checkComplete_(s);
  return s;
}

function checkComplete_(s) {
  if (!s.serverUrl || !s.secret) {
    throw fail_('Skillsync is not set up yet: choose Skillsync › Settings… and enter the server URL and the shared secret.');
  }
}

function checkSecret_(secret) {
  if (secret.length < MIN_SECRET_LENGTH_) {
    throw fail_('The secret is too short: the server\'s SKILLSYNC_SERVER_SECRET has at least ' +
      MIN_SECRET_LENGTH_ + ' characters (this one has ' + secret.length + ').');
  }
}

/**
 * "https://host[:port]" without a path: the server signs the path it receives, so a path prefix
 * (or a proxy rewriting one) would break every signature. Plain http is only accepted for the local
 * machine, which Google's servers cannot reach anyway; it keeps local tests simple.
 */
function normaliseServerUrl_(text) {
  const url = String(text || '').trim().replace(/\/+$/, '');
  const m = /^(https?):\/\/([^\/?#@\s]+)$/i.exec(url);
  if (!m) {
    throw fail_('The server URL must look like https://skillsync.example.com (scheme and host, ' +
      'no path): "' + url.slice(0, 100) + '" does not.');
  }
  const loopback = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(m[2]);
  if (m[1].toLowerCase() !== 'https' && !loopback) {
    throw fail_('The server URL must start with https://: Apps Script fetches it from Google\'s servers, ' +
      'which only reach skillsync serve through HTTPS (a reverse proxy or a tunnel).');
  }
  return m[1].toLowerCase() + '://' + m[2];
}
