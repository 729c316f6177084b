#!/usr/bin/env node
// The published entry point runs the compiled CLI; `npm install` / `npm ci` build it (the prepare script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/cli/run.js", import.meta.url));
if (!existsSync(compiled)) {
  process.stderr.write(
    "skillsync: the CLI is not built yet; run `npm run build` (npm install does it for you)\n",
  );
  process.exit(1);
}
await import(compiled);
