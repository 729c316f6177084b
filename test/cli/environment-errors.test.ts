import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { closedPort } from "../helpers/closed-port.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { tempDir } from "../helpers/temp-dir.js";
import { freshWarehouseUrl, PG_URL } from "../helpers/warehouses.js";
import { SECRET, startTestServer } from "../server/helpers.js";

// Issue 32 §3: what the user configured cannot be reached or opened: exit 2, what was tried, the
// flag or variable that set it and what to do — never raw driver text with exit 1.
const pg = (path: string, user = "postgres") => {
  const u = new URL(PG_URL ?? "postgres://postgres@127.0.0.1:5432/test");
  u.username = user;
  u.pathname = path;
  return u.toString();
};

describe("warehouse errors", () => {
  // `runs` only reads: a path whose folder cannot be made is a warehouse that is not there (exit 2 too).
  const BOTH = ["migrate", "runs"];
  it.each([
    [
      "an unknown host",
      "postgres://postgres@nosuchhost.invalid:5432/test",
      BOTH,
      /cannot reach Postgres .*: no such host/,
    ],
    [
      "a folder as the SQLite file",
      tmpdir(),
      BOTH,
      /cannot open the SQLite warehouse sqlite:.*: it is a folder/,
    ],
    ["a file in the way of its folder", "/etc/hostname/w.db", ["migrate"], /its folder cannot be created/],
  ])("%s", async (_name, db, commands, message) => {
    for (const command of commands) {
      const r = await cli([command, "--db", db]);
      expect(r.err).toMatch(message);
      expect(r.err).toMatch(/--db \(or DATABASE_URL\)/);
      expect(r.code).toBe(2);
    }
  });

  it("Postgres refused (nothing on the port); the password masked", async () => {
    const at = `127.0.0.1:${await closedPort()}`;
    for (const command of BOTH) {
      const r = await cli([command, "--db", `postgres://postgres:hunter2-secret@${at}/test`]);
      expect(r.err).toContain(
        `cannot reach Postgres at postgres://postgres:***@${at}/test: connection refused`,
      );
      expect(r.err).toMatch(/--db \(or DATABASE_URL\)/);
      expect(r.err).not.toContain("hunter2");
      expect(r.code).toBe(2);
    }
  });

  it("DATABASE_URL is named when it set the warehouse", async () => {
    const r = await cli(["migrate"], {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/test`,
    });
    expect(r.err).toMatch(/connection refused.*DATABASE_URL/);
    expect(r.code).toBe(2);
  });

  describe.skipIf(!PG_URL)("on the real Postgres server", () => {
    it("an unknown role", async () => {
      const r = await cli(["migrate", "--db", pg("/test", "nobody")]);
      expect(r.err).toMatch(
        /refused the login: role "nobody" does not exist\. Fix the user and password in --db/,
      );
      expect(r.code).toBe(2);
    });

    it("a database the server does not have", async () => {
      const r = await cli(["runs", "--db", pg("/no_such_database_here")]);
      expect(r.err).toMatch(/no database at .*no_such_database_here: create it \(createdb\) or fix --db/);
      expect(r.code).toBe(2);
    });
  });
});

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

describe("a port in use", () => {
  it("by an emulator: `emulator --port` says it is ours and how to stop it", async () => {
    const { emulator } = await emulatorWithClient();
    const r = await cli(["emulator", "--port", String(emulator.port)]);
    expect(r.err).toMatch(
      new RegExp(
        `port ${emulator.port} on 127\\.0\\.0\\.1 is in use \\(--port\\): a skillsync emulator is already running`,
      ),
    );
    expect(r.err).toContain(
      `or stop it with \`skillsync emulator stop --port ${emulator.port}\` (or Ctrl-C in its terminal). Pick another port, or --port 0 for any free one`,
    );
    expect(r.code).toBe(2);
  });

  it("by a skillsync server: `serve --port` says so", async () => {
    const t = await startTestServer("sqlite");
    const r = await cli(["serve", "--port", String(t.server.port), "--db", freshWarehouseUrl("sqlite")], {
      SKILLSYNC_SERVER_SECRET: SECRET,
      SKILL_API_BASE_URL: t.emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.err).toMatch(/is in use \(--port\): a skillsync server is already running/);
    expect(r.code).toBe(2);
  });

  it("by another program", async () => {
    // A program that is not HTTP: it hangs up on every connection.
    const other = createServer((socket) => socket.destroy());
    servers.push(other);
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    const port = (other.address() as { port: number }).port;
    const r = await cli(["emulator", "--port", String(port)]);
    expect(r.err).toMatch(/another program listens there/);
    expect(r.code).toBe(2);
  });
});

describe("the API unreachable", () => {
  it("a run ends at once, exit 2, naming --base-url and SKILL_API_BASE_URL; nothing spent", async () => {
    const port = await closedPort();
    const db = join(tempDir("env"), "w.db");
    const r = await cli(
      [
        "run",
        "marketplace-search",
        "--param",
        "keyword=a",
        "--param",
        "keyword=b",
        "--param",
        "keyword=c",
        "--db",
        db,
      ],
      { SKILL_API_BASE_URL: `http://127.0.0.1:${port}`, SKILL_API_KEY: DEMO_KEY },
    );
    expect(r.out + r.err).toMatch(
      /the API at http:\/\/127\.0\.0\.1:\d+ is unreachable.*Check --base-url or SKILL_API_BASE_URL/s,
    );
    expect(r.code).toBe(2);
    const runs = await cli(["runs", "--db", db, "--json"]);
    expect(JSON.parse(runs.out)[0].credits.spent).toBe(0);
  });
});
