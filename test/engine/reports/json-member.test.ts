import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { JsonMemberStream, JsonStreamError } from "../../../engine/reports/json-member.js";

/** Feeds a JSON text in pieces of `size` bytes (cutting escapes and UTF-8 sequences anywhere). */
async function extract(
  json: string,
  path: string[],
  size: number,
): Promise<{ text: string; rest: string; found: boolean }> {
  const bytes = Buffer.from(json, "utf8");
  const pieces = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
    bytes.subarray(i * size, (i + 1) * size),
  );
  const member = new JsonMemberStream(path);
  let text = "";
  for await (const chunk of Readable.from(pieces).pipe(member)) text += chunk as string;
  return { text, rest: member.rest, found: member.found };
}

const CONTENT =
  'Date,"Campaign, Name"\r\n2025-03-01,"He said ""hi"""\n"Multi\nline",Größe 🎄 收纳 \\ / \t end';

describe("streaming a JSON member", () => {
  it("yields the decoded member whatever the chunk size, and keeps the rest parseable", async () => {
    const envelope = {
      code: 0,
      msg: null,
      data: {
        note: { content: "not this one" },
        contentType: "text/csv",
        content: CONTENT,
        list: ["content", 1],
      },
      traceId: "t-1",
    };
    for (const json of [
      JSON.stringify(envelope),
      JSON.stringify(envelope, null, 2).replace(
        /[\u0080-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      ),
    ]) {
      for (const size of [1, 2, 3, 7, 64, 100_000]) {
        const r = await extract(json, ["data", "content"], size);
        expect(r.text, `chunks of ${size}`).toBe(CONTENT);
        expect(r.found).toBe(true);
        expect(JSON.parse(r.rest)).toEqual({ ...envelope, data: { ...envelope.data, content: "" } });
      }
    }
  });

  it("finds nothing when the member is null or missing", async () => {
    expect(await extract('{"data":{"content":null}}', ["data", "content"], 5)).toEqual({
      text: "",
      rest: '{"data":{"content":null}}',
      found: false,
    });
    expect((await extract('{"data":{}}', ["data", "content"], 5)).found).toBe(false);
  });

  it("fails on a text that is cut short", async () => {
    await expect(extract('{"data":{"content":"a,b\\n1,', ["data", "content"], 4)).rejects.toBeInstanceOf(
      JsonStreamError,
    );
  });
});
