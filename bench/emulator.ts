/**
 * Throughput of the emulator for marketplace-search with no added latency. The emulator runs in
 * a child process (one Node thread: "one core"); this process drives it over loopback with a
 * keep-alive undici Pool at a fixed concurrency, then prints calls/s and the child's CPU time
 * per call (user + system), which bounds what one core can serve.
 *
 *   node --import tsx bench/emulator.ts [--seconds 5] [--concurrency 32]
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { DEMO_KEY, startEmulator } from "../emulator/index.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

type Message = { port: number } | { cpu: NodeJS.CpuUsage };

if (process.argv.includes("--serve")) {
  const emu = await startEmulator({ port: 0 });
  process.on("message", async (msg: string) => {
    if (msg === "cpu") process.send?.({ cpu: process.cpuUsage() });
    if (msg === "stop") {
      await emu.stop();
      process.disconnect();
    }
  });
  process.send?.({ port: emu.port });
} else {
  const seconds = arg("seconds", 5);
  const concurrency = arg("concurrency", 32);
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: ["--import", "tsx"] });
  const next = () => new Promise<Message>((resolve) => child.once("message", (m: Message) => resolve(m)));
  const { port } = (await next()) as { port: number };
  const cpu = async () => {
    child.send("cpu");
    return ((await next()) as { cpu: NodeJS.CpuUsage }).cpu;
  };

  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency, pipelining: 1 });
  const headers = { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" };
  const latencies: number[] = [];
  let bytes = 0;
  let failures = 0;
  const drive = async (until: number, record: boolean) => {
    let n = 0;
    const worker = async (w: number) => {
      while (performance.now() < until) {
        const body = JSON.stringify({ keyword: `keyword ${(w * 7 + n++) % 200}`, page: 1 + (n % 3) });
        const t = performance.now();
        const res = await pool.request({
          method: "POST",
          path: "/api/skill-api/v1/skills/marketplace-search/run",
          headers,
          body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) failures++;
        if (record) {
          latencies.push(performance.now() - t);
          bytes += text.length;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  };

  await drive(performance.now() + 1000, false); // warm-up: JIT, connections
  const before = await cpu();
  const started = performance.now();
  await drive(started + seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  const after = await cpu();
  child.send("stop");
  await pool.close();

  const calls = latencies.length;
  const cpuMs = (after.user - before.user + after.system - before.system) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(calls - 1, Math.floor(calls * p))]?.toFixed(2);
  console.log(`marketplace-search over loopback, concurrency ${concurrency}, ${elapsed.toFixed(1)} s`);
  console.log(
    `  calls/s:              ${(calls / elapsed).toFixed(0)}  (${calls} calls, ${failures} non-200)`,
  );
  console.log(`  latency ms:           p50 ${pct(0.5)}  p99 ${pct(0.99)}`);
  console.log(`  answer size:          ${(bytes / calls / 1024).toFixed(1)} KiB`);
  console.log(
    `  emulator CPU per call: ${((cpuMs / calls) * 1000).toFixed(0)} µs  (one core ≈ ${(calls / (cpuMs / 1000)).toFixed(0)} calls/s)`,
  );
}
