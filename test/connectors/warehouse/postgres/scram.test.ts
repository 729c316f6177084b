import { createHash, createHmac } from "node:crypto";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { scramVerifier } from "../../../../connectors/warehouse/postgres/reader.js";

// node-postgres's own SCRAM client (what logs the reader role in), driven against a server side
// written from RFC 5802 §3 with nothing but the verifier the reader role is created with.
const sasl = createRequire(import.meta.url)("pg/lib/crypto/sasl.js") as {
  startSession(mechanisms: string[]): { clientNonce: string; response: string };
  continueSession(session: object, password: string, serverFirst: string): Promise<void>;
  finalizeSession(session: object, serverFinal: string): void;
};

const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();

/** Logs in with `password` against `verifier`: true when the server would accept the client's proof. */
async function logIn(verifier: string, password: string): Promise<boolean> {
  const [, params, keys] = verifier.split("$") as [string, string, string];
  const [iterations, salt] = params.split(":") as [string, string];
  const [storedKey, serverKey] = keys.split(":").map((k) => Buffer.from(k, "base64")) as [Buffer, Buffer];
  const session = sasl.startSession(["SCRAM-SHA-256"]) as { clientNonce: string; response: string };
  const nonce = `${session.clientNonce}server`;
  const serverFirst = `r=${nonce},s=${salt},i=${iterations}`;
  await sasl.continueSession(session, password, serverFirst);
  const [channel, , proof] = session.response.split(",") as [string, string, string];
  const auth = `n=*,r=${session.clientNonce},${serverFirst},${channel},r=${nonce}`;
  const signature = hmac(storedKey, auth);
  const clientKey = Buffer.from(proof.slice(2), "base64").map((b, i) => b ^ signature[i]!);
  if (!createHash("sha256").update(clientKey).digest().equals(storedKey)) return false;
  // And the client accepts the server: it proves it holds the server key.
  sasl.finalizeSession(session, `v=${hmac(serverKey, auth).toString("base64")}`);
  return true;
}

describe("the reader role's SCRAM-SHA-256 verifier", () => {
  it("lets node-postgres log in with the password, and only with it", async () => {
    const verifier = scramVerifier("flJTQNvozl-pFxmBzbAvMYq7hv2UN2lS");
    expect(verifier).toMatch(
      /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}:[A-Za-z0-9+/=]{44}$/,
    );
    expect(await logIn(verifier, "flJTQNvozl-pFxmBzbAvMYq7hv2UN2lS")).toBe(true);
    expect(await logIn(verifier, "flJTQNvozl-pFxmBzbAvMYq7hv2UN2lT")).toBe(false);
  });

  it("matches RFC 7677's test vector", () => {
    // RFC 7677 §3: password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations.
    const v = scramVerifier("pencil", Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64"), 4096);
    const [storedKey, serverKey] = v
      .split("$")[2]!
      .split(":")
      .map((k) => Buffer.from(k, "base64")) as [Buffer, Buffer];
    const auth =
      "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    // The RFC's ClientProof checks out against the StoredKey, as the server checks it…
    const proof = Buffer.from("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "base64");
    const signature = hmac(storedKey, auth);
    const clientKey = proof.map((b, i) => b ^ signature[i]!);
    expect(createHash("sha256").update(clientKey).digest().equals(storedKey)).toBe(true);
    // …and the RFC's ServerSignature comes from the ServerKey.
    expect(hmac(serverKey, auth).toString("base64")).toBe("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  });
});
