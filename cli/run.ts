import { keepHeapSmall } from "./heap.js";
import { main } from "./main.js";

keepHeapSmall();

// `skillsync tables | head` closes our stdout early: that is the reader's choice, not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  throw err;
});

// The working folder's `.env` fills what the environment leaves unset (cli/dotenv.ts).
process.exitCode = await main(process.argv.slice(2), { envFrom: process.cwd() });
