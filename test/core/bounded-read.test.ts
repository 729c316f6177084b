import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readBoundedBytes, readBoundedText } from "../../core/bounded-read.js";
import { ValidationError } from "../../core/errors.js";
import { afterTest } from "../helpers/after-test.js";

const bound = { maxBytes: 1000, what: "--param keyword", instead: "split the file" };

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-bounded-read-"));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A FIFO with a shell writing `script`'s output into it (the open blocks until both ends are there). */
function fifoFrom(script: string): string {
  const fifo = join(tempDir(), "fifo");
  // Through the shell, which every test machine has, as the writer below is.
  execFileSync("sh", ["-c", 'mkfifo "$0"', fifo]);
  const writer = spawn("sh", ["-c", `${script} > "$0"`, fifo], { stdio: "ignore" });
  afterTest(() => writer.kill("SIGKILL"));
  return fifo;
}

function refusal(read: () => unknown): ValidationError {
  try {
    read();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error("was read, not refused");
}

describe("readBoundedText", () => {
  it("reads a regular file up to the limit, and refuses one byte more by its size", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "at.txt"), "a".repeat(1000));
    writeFileSync(join(dir, "over.txt"), "a".repeat(1001));
    expect(readBoundedText(join(dir, "at.txt"), bound)).toBe("a".repeat(1000));
    const err = refusal(() => readBoundedText(join(dir, "over.txt"), bound));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `invalid --param keyword:\n  ${join(dir, "over.txt")} is 1001 bytes, more than 1000 bytes, the most skillsync reads of it: split the file`,
    );
  });

  it("stops reading /dev/zero one byte past the limit", () => {
    const started = performance.now();
    const err = refusal(() => readBoundedBytes("/dev/zero", { ...bound, maxBytes: 16 * 1024 * 1024 }));
    expect(err.message).toContain("/dev/zero is longer than 16 MiB (16777216 bytes)");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("reads a pipe that ends, and refuses one that goes on past the limit", () => {
    expect(readBoundedText(fifoFrom("printf 'usb hub\\ndesk mat\\n'"), bound)).toBe("usb hub\ndesk mat\n");
    const endless = refusal(() => readBoundedText(fifoFrom("yes keyword"), bound));
    expect(endless.message).toContain("fifo is longer than 1000 bytes");
  });

  it("passes a folder's and a missing file's own errors on, for the caller to word", () => {
    const dir = tempDir();
    expect(() => readBoundedText(dir, bound)).toThrow(expect.objectContaining({ code: "EISDIR" }));
    expect(() => readBoundedText(join(dir, "none"), bound)).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
  });
});
