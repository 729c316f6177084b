/**
 * The distinctive secrets every part of the reliability suite uses, so the final scan can look for
 * them in everything the suite produced. None of them is real.
 */
export const API_KEY = "sk-reliability-APIKEY-5f0c9e2a7b3d4e6f8a1c";
export const SERVER_SECRET = "reliability-SERVERSECRET-0d4c8b2e6a9f1357bdf2";
export const GOOGLE_ACCESS_TOKEN = "ya29.reliability-ACCESSTOKEN-7e1a3c5b9d2f";
/** The body of the fake service-account private key: recognizable, and not a key any library can use. */
export const GOOGLE_PRIVATE_KEY_MARK = "RELIABILITYPRIVATEKEYb64MIIEvQIBADANBgkqhkiG9w0BAQEFAASC";
const GOOGLE_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----\n${GOOGLE_PRIVATE_KEY_MARK}\n${"Qz8x".repeat(16)}\n-----END PRIVATE KEY-----\n`;

/** Everything the scan looks for, by name. */
export const SECRETS: Record<string, string> = {
  "API key": API_KEY,
  "server secret": SERVER_SECRET,
  "Google access token": GOOGLE_ACCESS_TOKEN,
  "Google private key": GOOGLE_PRIVATE_KEY_MARK,
};

/** A service-account key file as Google's console hands it out, with the fake private key. */
export function serviceAccountKey(): Record<string, string> {
  return {
    type: "service_account",
    project_id: "skillsync-reliability",
    private_key_id: "0123456789abcdef0123456789abcdef01234567",
    private_key: GOOGLE_PRIVATE_KEY,
    client_email: "reliability@skillsync-reliability.iam.gserviceaccount.com",
    client_id: "100000000000000000001",
    token_uri: "http://127.0.0.1:9/token",
  };
}
