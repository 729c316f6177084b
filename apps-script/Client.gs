/**
 * Signed requests to the user's `skillsync serve`.
 *
 * Every request carries X-Skillsync-Timestamp (Unix seconds) and X-Skillsync-Signature: the hex
 * HMAC-SHA256, keyed with the shared secret, of timestamp + "\n" + METHOD + "\n" + path-with-query +
 * "\n" + body. The server accepts each signature once, so every request adds a random `nonce` to its
 * query: two identical polls within one second would otherwise look like a replay.
 */

/**
 * The lowercase hex signature of one request.
 * @example signRequest_(secret, '1700000000', 'GET', '/budget?nonce=1', '') // 64 hex characters
 */
function signRequest_(secret, timestamp, method, pathWithQuery, body) {
  const text = timestamp + '\n' + method.toUpperCase() + '\n' + pathWithQuery + '\n' + body;
  return bytesToHex_(Utilities.computeHmacSha256Signature(text, secret, Utilities.Charset.UTF_8));
}

/** Apps Script gives signed bytes (-128..127): mask each to 0..255 before writing it as two hex digits. */
function bytesToHex_(bytes) {
  return bytes.map(function (b) { return (b & 0xff).toString(16).padStart(2, '0'); }).join('');
}

/** "/tables/x" + {limit: 10} → "/tables/x?limit=10&nonce=…", every value percent-encoded. */
function pathWithQuery_(path, query) {
  const q = query || {};
  const parts = Object.keys(q)
    .filter(function (k) { return q[k] !== undefined && q[k] !== null && q[k] !== ''; })
    .map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(String(q[k])); });
  parts.push('nonce=' + encodeURIComponent(Utilities.getUuid()));
  return path + '?' + parts.join('&');
}

/**
 * Sends one signed request and returns the answer's JSON; any failure becomes a readable error.
 * @example callServer_('GET', '/tables/results', { limit: 100, offset: 0 })
 */
function callServer_(method, path, query, body, settings) {
  const s = settings || requireSettings_();
  const target = pathWithQuery_(path, query);
  const text = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const options = {
    method: method.toLowerCase(),
    headers: {
      'X-Skillsync-Timestamp': timestamp,
      'X-Skillsync-Signature': signRequest_(s.secret, timestamp, method, target, text),
    },
    muteHttpExceptions: true,
    followRedirects: false,
  };
  if (text) {
    options.contentType = 'application/json';
    options.payload = text;
  }
  let response;
  try {
    response = UrlFetchApp.fetch(s.serverUrl + target, options);
  } catch (err) {
    throw fetchError_(err, s);
  }
  return answerOf_(response, method, path, s);
}

function fetchError_(err, s) {
  const text = scrub_(err && err.message ? err.message : String(err), s.secret).replace(/^Exception: /, '');
  if (/allowlist|whitelist/i.test(text)) {
    return fail_(s.serverUrl + '/ is not in the urlFetchWhitelist of the script\'s appsscript.json: add it there ' +
      'and push the script again (see the README).');
  }
  if (/too large|size/i.test(text) && !/time/i.test(text)) {
    return fail_('The server\'s answer was larger than Apps Script takes (50 MB): ' + text, 'too-large');
  }
  return fail_('Could not reach the Skillsync server at ' + s.serverUrl + ': ' + text +
    '. Check the URL in Skillsync › Settings… and that skillsync serve is running behind HTTPS.');
}

/** The JSON of a 2xx answer; anything else is thrown as an error saying what was refused and why. */
function answerOf_(response, method, path, s) {
  const status = response.getResponseCode();
  let json = null;
  try {
    json = JSON.parse(response.getContentText());
  } catch (e) {
    json = null;
  }
  if (status >= 200 && status < 300 && json !== null) return json;
  throw answerError_(status, json && json.error ? json.error : null, method + ' ' + path, s);
}

function answerError_(status, error, where, s) {
  if (!error && status >= 300 && status < 400) {
    return fail_('The server at ' + s.serverUrl + ' redirects (' + status + '); put the address it redirects to ' +
      'in Skillsync › Settings… (signed requests are not redirected).');
  }
  if (!error) {
    return fail_('The server at ' + s.serverUrl + ' answered ' + status + ' to ' + where + ' with something that ' +
      'is not Skillsync\'s JSON. Is the URL in Skillsync › Settings… the address of skillsync serve?');
  }
  const said = scrub_(String(error.message), s.secret);
  if (status === 401) {
    return fail_('The Skillsync server refused the request (' + said + '). Check that the secret in ' +
      'Skillsync › Settings… is the server\'s SKILLSYNC_SERVER_SECRET' +
      (/clock/.test(said) ? ' and that the server\'s clock is right' : '') + '.');
  }
  if (status === 413) return fail_('The request was too large for the server (at most 64 KB): use fewer values.');
  if (status >= 500) return fail_('The Skillsync server failed (' + status + ' on ' + where + '): ' + said);
  return fail_('The Skillsync server refused ' + where + ': ' + said);
}

/** Belt and braces: no message shown or logged ever carries the secret, whatever echoed it. */
function scrub_(text, secret) {
  return secret ? String(text).split(secret).join('[secret]') : String(text);
}
