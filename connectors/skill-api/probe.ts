import { operationPath, PROBE_SLUG } from "../../schema/catalog.js";
import type { SkillApiConfig } from "./client-config.js";
import { TransportError } from "./errors.js";
import { HttpTransport } from "./transport.js";

export interface ApiProbe {
  reachable: boolean;
  /** true: the key passed; false: 401/403; undefined: the answer does not tell. */
  keyAccepted: boolean | undefined;
  detail: string;
}

/**
 * Checks the API without a paid call: one POST of `{}` to PROBE_SLUG, an operation that does not
 * exist. A 401 means the key was refused; 404 (no such operation) means it passed the key check.
 *
 * @example await probeApi(client.config) // { reachable: true, keyAccepted: true, detail: "HTTP 404 …" }
 */
export async function probeApi(config: SkillApiConfig): Promise<ApiProbe> {
  const transport = new HttpTransport(config);
  const url = new URL(`${config.baseUrl}${operationPath(PROBE_SLUG)}`);
  try {
    const res = await transport.post({
      slug: PROBE_SLUG,
      url,
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${config.apiKey}`,
      },
      payload: "{}",
      signal: AbortSignal.timeout(10_000),
    });
    const detail = `HTTP ${res.status} for ${PROBE_SLUG}, an operation that does not exist`;
    if (res.status === 401)
      return { reachable: true, keyAccepted: false, detail: `${detail}: the key was refused` };
    if (res.status === 403)
      return { reachable: true, keyAccepted: false, detail: `${detail}: access refused` };
    if (res.status === 404) return { reachable: true, keyAccepted: true, detail };
    return { reachable: true, keyAccepted: undefined, detail: `${detail}: the key could not be checked` };
  } catch (err) {
    const why = err instanceof TransportError ? err.message : String(err);
    return { reachable: false, keyAccepted: undefined, detail: why };
  } finally {
    await transport.close();
  }
}
