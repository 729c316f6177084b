import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ConsoleReply } from "./respond.js";

/** The bundle `scripts/build-web.mjs` makes at install (npm's prepare) from web/: served from the package, no CDN. */
const BUILT = new URL("../../dist/web/", import.meta.url);
// Compiled, this file is dist/server/console/assets.js: the bundle is then two folders up as well.
const BUILT_FROM_DIST = new URL("../../web/", import.meta.url);

const TYPES: Record<string, string> = {
  "console.js": "text/javascript; charset=utf-8",
  "console.css": "text/css; charset=utf-8",
};

export interface ConsoleAssets {
  reply(name: string): ConsoleReply;
}

function readAsset(name: string): Buffer | undefined {
  for (const base of [BUILT, BUILT_FROM_DIST]) {
    try {
      return readFileSync(fileURLToPath(new URL(name, base)));
    } catch {
      // Not here: the other place, or not built.
    }
  }
  return undefined;
}

/** The console's script and stylesheet, read once; a missing bundle is a 500 that says how to build it. */
export function consoleAssets(): ConsoleAssets {
  const cache = new Map<string, { body: Buffer; etag: string }>();
  return {
    reply(name) {
      const type = TYPES[name];
      if (!type) return { status: 404, text: `no asset ${name.slice(0, 80)}` };
      let hit = cache.get(name);
      if (!hit) {
        const body = readAsset(name);
        if (!body) return { status: 500, text: "the console's bundle is not built: run `npm run build`" };
        hit = { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` };
        cache.set(name, hit);
      }
      return { status: 200, asset: hit.body, type, etag: hit.etag };
    },
  };
}
