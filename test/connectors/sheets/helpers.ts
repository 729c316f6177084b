import { SheetsConnector, type SheetsConnectorOptions } from "../../../connectors/sheets/index.js";
import { type SheetsFake, startSheetsFake } from "../../fakes/sheets-fake.js";

/** A fake and connectors pointed at it (token auth, no network beyond loopback, short backoff). */
export function sheetsFakes() {
  let fake: SheetsFake | undefined;
  return {
    async start(o: { maxBodyBytes?: number } = {}): Promise<SheetsFake> {
      fake = await startSheetsFake(o);
      return fake;
    },
    connector(f: SheetsFake, extra: Partial<SheetsConnectorOptions> = {}): Promise<SheetsConnector> {
      return SheetsConnector.create({
        credentials: { accessToken: f.token },
        rootUrl: f.url,
        retry: { baseDelayMs: 5, maxDelayMs: 50, giveUpAfterMs: 2000 },
        ...extra,
      });
    },
    async stop(): Promise<void> {
      await fake?.stop();
      fake = undefined;
    },
  };
}

/** The write requests that carried values (PUT values and :append). */
export function valueWrites(f: SheetsFake) {
  return f.requests.filter(
    (r) =>
      r.status === 200 && ((r.method === "PUT" && r.path.includes("/values/")) || r.path.endsWith(":append")),
  );
}
