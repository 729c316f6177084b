// Builds the console's browser assets into dist/web/ (served at /console/assets/):
//   console.js  — web/console.ts with uPlot, one ES module (no CDN, nothing loaded at run time);
//   console.css — uPlot's stylesheet, then web/console.css (later rules win).
// Run by `prepare` after the TypeScript build, by `npm run build`, and by the tests' global setup.
// Each file is written beside its place and renamed into it, so a server (or a test) reading the
// folder while it is rebuilt sees the old file or the new one, never half of one.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "dist", "web");

const common = { bundle: true, minify: true, write: false, logLevel: "error", legalComments: "none" };

const script = build({
  ...common,
  entryPoints: [join(root, "web", "console.ts")],
  outfile: join(out, "console.js"),
  format: "esm",
  platform: "browser",
  target: "es2020",
  sourcemap: false,
  tsconfig: join(root, "web", "tsconfig.json"),
});

const style = build({
  ...common,
  stdin: {
    contents: '@import "uplot/dist/uPlot.min.css";\n@import "./web/console.css";\n',
    resolveDir: root,
    loader: "css",
  },
  outfile: join(out, "console.css"),
  target: "chrome100",
});

mkdirSync(out, { recursive: true });
for (const result of await Promise.all([script, style]))
  for (const file of result.outputFiles) {
    const part = join(out, `.${basename(file.path)}.${process.pid}.tmp`);
    writeFileSync(part, file.contents);
    renameSync(part, file.path);
  }
