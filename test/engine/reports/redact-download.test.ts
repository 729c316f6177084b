import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../../connectors/skill-api/client-config.js";
import { streamDownload } from "../../../engine/reports/stream-download.js";
import { envelope, FakeServer } from "../../connectors/skill-api/fake-server.js";
import { DOWNLOAD } from "./helpers.js";

const KEY = "sk-live-echoed-into-a-report-0123456789";
let fake: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a streamed report part", () => {
  it("is stored with the API key redacted wherever the provider echoed it", async () => {
    // Large enough to arrive in many pieces, with the key at places that fall across them.
    const lines = Array.from({ length: 6000 }, (_, i) => (i % 997 === 0 ? `${i},${KEY}` : `${i},row ${i}`));
    const content = `n,value\n${lines.join("\n")}\n`;
    fake = await FakeServer.start();
    fake.script({ body: envelope({ content, contentType: "text/csv" }) });
    dir = mkdtempSync(join(tmpdir(), "skillsync-redact-"));
    const spool = join(dir, "part.json.gz");
    const config = resolveConfig({ baseUrl: fake.baseUrl, apiKey: KEY });
    await streamDownload(config, DOWNLOAD, { connectionId: 5, documentToken: "t1" }, spool);
    const stored = JSON.parse(gunzipSync(readFileSync(spool)).toString("utf8")) as { content: string };
    expect(stored.content).not.toContain(KEY);
    expect(stored.content).toBe(content.split(KEY).join("[redacted]"));
  });
});
