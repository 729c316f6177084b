// npm's `prepare`: builds dist/ with `tsc -p tsconfig.build.json` at `npm install` / `npm ci`, then
// the console's browser assets (scripts/build-web.mjs → dist/web/).
//
// npm 11 answers the first `npx skillsync …` in this folder by installing the folder into npx's
// cache (to link the package's own bin), which runs `prepare` once more: a second full build, 20 to
// 60 s of silence before the first command of README, for a dist/ that `npm ci` has just made.
// Under `npm exec` (npx) an existing build is therefore kept; any other install builds as before.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const built = ["../dist/cli/run.js", "../dist/web/console.js"].every((f) =>
  existsSync(fileURLToPath(new URL(f, import.meta.url))),
);

if (process.env.npm_command === "exec" && built) process.exit(0);

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const build = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
if (build.status !== 0) process.exit(build.status ?? 1);
const web = spawnSync(process.execPath, ["scripts/build-web.mjs"], { cwd: root, stdio: "inherit" });
process.exit(web.status ?? 1);
