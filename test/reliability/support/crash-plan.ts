import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { canonicalJson } from "../../../emulator/index.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { rows } from "./snapshot.js";
import { filesDir } from "./suite.js";

/**
 * The built-in report pipeline with polling in milliseconds instead of seconds, as a file: the
 * killed run, the resumed one and an explicit `reports retry` of its job all read the same file.
 */
export function fastReportPipeline(): string {
  const text = readFileSync(loadPipeline("ads-sp-search-impression-share").file, "utf8");
  const fast = text.replace(/poll: \{[^}]*\}/, "poll: { initial: 20ms, max: 20ms, factor: 1, timeout: 60s }");
  if (fast === text) throw new Error("the report pipeline has no poll block to speed up");
  const file = join(filesDir("crash-pipeline"), "ads-sp-search-impression-share.yaml");
  writeFileSync(file, fast);
  return file;
}
const emuHash = (body: unknown) => createHash("sha256").update(canonicalJson(body)).digest("hex");

/** The engine's request hashes of the calls a killed run left in flight, mapped to the emulator's body hashes. */
export async function inFlight(w: Warehouse, reserved: string[]): Promise<Set<string>> {
  if (!reserved.length) return new Set();
  const stored = await rows<{ request_hash: string; skill: string; request: unknown }>(
    w,
    "select request_hash, skill, request from skillsync_responses",
  );
  const bodies = new Map(
    stored.map((r) => [
      r.request_hash,
      `${r.skill}\n${emuHash(typeof r.request === "string" ? JSON.parse(r.request) : r.request)}`,
    ]),
  );
  return new Set(reserved.map((h) => bodies.get(h) ?? `unknown:${h}`));
}
