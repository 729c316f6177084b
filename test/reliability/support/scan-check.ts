import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import SQLite from "better-sqlite3";
import { emptyCounts, scanFolder } from "./scan.js";
import { API_KEY, GOOGLE_PRIVATE_KEY_MARK, SERVER_SECRET } from "./secrets.js";

/**
 * The scan must be able to find what it looks for: secrets planted in a text cell, in a gzipped
 * blob (a stored response) and in a log file are all found, or the suite fails.
 */
export function checkScanner(): void {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-scan-check-"));
  try {
    const db = new SQLite(join(dir, "planted.db"));
    db.exec("create table t (a text, b blob)");
    db.prepare("insert into t values (?, ?)").run(
      `x ${SERVER_SECRET} y`,
      gzipSync(Buffer.from(JSON.stringify({ k: GOOGLE_PRIVATE_KEY_MARK }))),
    );
    db.close();
    writeFileSync(join(dir, "out.log"), `Bearer ${API_KEY}\n`);
    const c = emptyCounts();
    scanFolder(dir, c);
    const found = new Set(c.leaks.map((l) => l.secret));
    for (const name of ["server secret", "Google private key", "API key"]) {
      if (!found.has(name)) throw new Error(`the secret scan missed a planted ${name}: it is broken`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
