import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { GasProject } from "./project.js";

/**
 * What Apps Script injects into a sidebar or dialog: `google.script.run`, whose calls go (here)
 * to POST /rpc and come back asynchronously to the success or failure handler, and
 * `google.script.host`. Runs in the browser, so it is plain ES5-ish script text.
 */
const GOOGLE_SCRIPT_SHIM = `<script>
(function () {
  function runner(handlers) {
    return new Proxy({}, {
      get: function (_, name) {
        if (name === 'withSuccessHandler') return function (f) { return runner(Object.assign({}, handlers, { ok: f })); };
        if (name === 'withFailureHandler') return function (f) { return runner(Object.assign({}, handlers, { fail: f })); };
        if (name === 'withUserObject') return function (o) { return runner(Object.assign({}, handlers, { user: o })); };
        return function () {
          var args = Array.prototype.slice.call(arguments);
          fetch('/rpc', { method: 'POST', body: JSON.stringify({ fn: String(name), args: args }) })
            .then(function (r) { return r.json(); })
            .then(function (r) {
              if (r.ok) { if (handlers.ok) handlers.ok(r.value, handlers.user); }
              else if (handlers.fail) handlers.fail(new Error(r.message), handlers.user);
            });
        };
      },
    });
  }
  window.google = { script: {
    run: runner({}),
    host: { close: function () { window.__hostClosed = true; }, setHeight: function () {}, setWidth: function () {} },
  } };
})();
</script>`;

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export interface PageServer {
  url: string;
  /** Serves a page's HTML (as the script's HtmlService produced it) at /pages/<name>. */
  show(name: string, html: string): string;
  /** Every google.script.run call the pages made, in order. */
  calls: { fn: string; ok: boolean }[];
  close(): Promise<void>;
}

/**
 * Serves the add-on's sidebars and dialogs over loopback HTTP for a real browser, with
 * `google.script.run` wired to the project's functions (each call one execution, as in Apps
 * Script), which talk to the real `skillsync serve` behind the project.
 */
export async function startPageServer(project: GasProject): Promise<PageServer> {
  const pages = new Map<string, string>();
  const calls: PageServer["calls"] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://page");
      if (req.method === "POST" && url.pathname === "/rpc") {
        const { fn, args } = JSON.parse(await body(req)) as { fn: string; args: unknown[] };
        const result = project.rpc(fn, ...args);
        calls.push({ fn, ok: result.ok });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(result));
        return;
      }
      const page = pages.get(url.pathname);
      if (req.method === "GET" && page !== undefined) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(page.replace(/<head>/i, `<head>${GOOGLE_SCRIPT_SHIM}`));
        return;
      }
      res.writeHead(404).end();
    })().catch((err: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, message: err instanceof Error ? err.message : String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    calls,
    show(name, html) {
      pages.set(`/pages/${name}`, html);
      return `${url}/pages/${name}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
