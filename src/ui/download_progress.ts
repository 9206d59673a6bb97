// The progress of a model download on stderr: on a terminal one line redrawn in place (size,
// percentage, speed, time left); otherwise a plain line at each tenth, for logs.

import { humanSize } from "../platform/human_size.ts";
import type { DownloadEvents } from "../providers/model_download.ts";

/** Where the progress goes, and the clock (seams for tests). */
export interface ProgressSink {
  write(text: string): void;
  isTerminal: boolean;
  /** Milliseconds (default Date.now). */
  now?: () => number;
}

/**
 * "1m 05s", "2h 03m", "12s".
 *
 * @example
 * ```ts
 * import { formatDuration } from "./download_progress.ts";
 * if (formatDuration(65_000) !== "1m 05s") throw new Error(formatDuration(65_000));
 * ```
 */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/**
 * Download events that draw the progress for a model called `name`.
 *
 * @example
 * ```ts
 * import { downloadProgress } from "./download_progress.ts";
 * const out: string[] = [];
 * let now = 0;
 * const p = downloadProgress("m", { write: (t) => void out.push(t), isTerminal: false, now: () => now });
 * p.onStart!({ totalBytes: 1000, resumedBytes: 0, file: "/c/m.gguf" });
 * now = 1000;
 * p.onProgress!(500, 1000);
 * if (!out.join("").includes("50%")) throw new Error(out.join(""));
 * ```
 */
export function downloadProgress(name: string, sink: ProgressSink): Required<DownloadEvents> {
  const now = sink.now ?? Date.now;
  let started = 0;
  let startBytes = 0;
  let lastDraw = -Infinity;
  let lastTenth = -1;
  const line = (done: number, total: number): string => {
    const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
    const elapsed = now() - started;
    const speed = elapsed > 0 ? ((done - startBytes) / elapsed) * 1000 : 0;
    const left = speed > 0 ? `${formatDuration(((total - done) / speed) * 1000)} left` : "";
    return [
      `Downloading ${name}`,
      `${humanSize(done)} / ${humanSize(total)}`,
      `${percent}%`,
      ...(speed > 0 ? [`${humanSize(speed)}/s`] : []),
      ...(left ? [left] : []),
    ].join("  ");
  };
  return {
    onStart({ totalBytes, resumedBytes, file }) {
      started = now();
      startBytes = resumedBytes;
      const resumed = resumedBytes > 0 ? `, continuing from ${humanSize(resumedBytes)}` : "";
      sink.write(`Downloading ${name} (${humanSize(totalBytes)}) to ${file}${resumed}\n`);
      lastTenth = Math.floor((resumedBytes / Math.max(1, totalBytes)) * 10);
    },
    onProgress(done, total) {
      if (sink.isTerminal) {
        const t = now();
        if (t - lastDraw < 100 && done < total) return;
        lastDraw = t;
        sink.write(`\r\x1b[2K${line(done, total)}`);
        return;
      }
      const tenth = Math.floor((done / Math.max(1, total)) * 10);
      if (tenth <= lastTenth) return;
      lastTenth = tenth;
      sink.write(`${line(done, total)}\n`);
    },
    onVerify() {
      sink.write(`${sink.isTerminal ? "\r\x1b[2K" : ""}Checking the downloaded file\n`);
    },
  };
}
