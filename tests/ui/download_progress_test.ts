// The download progress line (src/ui/download_progress.ts) with a scripted clock: size,
// percentage, speed and time left, redrawn in place on a terminal, a line per tenth otherwise.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { downloadProgress, formatDuration } from "../../src/ui/download_progress.ts";

const MB = 1024 * 1024;

function scripted(isTerminal: boolean) {
  const out: string[] = [];
  let now = 0;
  const events = downloadProgress("Qwen3", {
    write: (text) => void out.push(text),
    isTerminal,
    now: () => now,
  });
  return { out, events, at: (ms: number) => void (now = ms) };
}

Deno.test("downloadProgress() redraws one line on a terminal with size, speed and time left", () => {
  const { out, events, at } = scripted(true);
  events.onStart({ totalBytes: 100 * MB, resumedBytes: 0, file: "/cache/q.gguf" });
  at(2000);
  events.onProgress(20 * MB, 100 * MB);
  at(2050); // redrawn at most every 100 ms
  events.onProgress(21 * MB, 100 * MB);
  at(4000);
  events.onProgress(40 * MB, 100 * MB);
  events.onVerify();
  assertEquals(out, [
    "Downloading Qwen3 (100.0 MB) to /cache/q.gguf\n",
    "\r\x1b[2KDownloading Qwen3  20.0 MB / 100.0 MB  20%  10.0 MB/s  8s left",
    "\r\x1b[2KDownloading Qwen3  40.0 MB / 100.0 MB  40%  10.0 MB/s  6s left",
    "\r\x1b[2KChecking the downloaded file\n",
  ]);
});

Deno.test("downloadProgress() writes a plain line per tenth when not on a terminal", () => {
  const { out, events, at } = scripted(false);
  // A resumed download: the speed counts only the bytes of this run.
  events.onStart({ totalBytes: 1000 * MB, resumedBytes: 500 * MB, file: "/c/q.gguf" });
  at(10_000);
  events.onProgress(550 * MB, 1000 * MB);
  at(20_000);
  events.onProgress(600 * MB, 1000 * MB);
  events.onProgress(610 * MB, 1000 * MB);
  assertEquals(out, [
    "Downloading Qwen3 (1000.0 MB) to /c/q.gguf, continuing from 500.0 MB\n",
    "Downloading Qwen3  600.0 MB / 1000.0 MB  60%  5.0 MB/s  1m 20s left\n",
  ]);
});

Deno.test("formatDuration() reads as seconds, minutes or hours", () => {
  assertEquals(
    [0, 9_400, 65_000, 3_600_000 + 180_000].map(formatDuration),
    ["0s", "9s", "1m 05s", "1h 03m"],
  );
});
