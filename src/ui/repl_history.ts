// REPL history: the lines the user typed, kept per working directory across runs, in
// `$XDG_DATA_HOME/harness/history/<sha256(cwd)>.jsonl` (one JSON string a line, oldest
// first, at most 1000). The REPL passes loadHistory() to node:readline's `history` option
// and calls appendHistory() for each line it accepts.

import { dirname, join } from "node:path";
import { dataDir } from "../config/folders.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";

/** Most lines kept per working directory. */
export const HISTORY_LIMIT = 1000;

/** Where history lives: a folder, or the environment to find the default folder. */
export interface HistoryOptions {
  /** The history folder (default `$XDG_DATA_HOME/harness/history`). */
  dir?: string;
  /** Environment for the default folder (default: the process environment). */
  env?: Record<string, string>;
}

/**
 * The history file for a working directory.
 *
 * @param cwd The working directory.
 * @param options Folder or environment.
 * @returns The file path.
 *
 * @example
 * ```ts
 * import { historyFile } from "./repl_history.ts";
 * const file = historyFile("/project", { dir: "/h" });
 * if (!file.endsWith(".jsonl")) throw new Error(file);
 * ```
 */
export function historyFile(cwd: string, options: HistoryOptions = {}): string {
  const dir = options.dir ??
    join(dataDir(options.env ?? Deno.env.toObject()), "history");
  const hash = sha256Hex(cwd).slice(0, 32);
  return join(dir, `${hash}.jsonl`);
}

/** Lines of the history file, oldest first; a missing or unreadable file is empty. */
function readLines(file: string): string[] {
  return parseLines(readText(file));
}

function readText(file: string): string {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return "";
  }
}

function parseLines(text: string): string[] {
  const lines: string[] = [];
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    try {
      const line: unknown = JSON.parse(raw);
      if (typeof line === "string") lines.push(line);
    } catch {
      // A line cut by a crash mid-append: skip it, keep the rest.
    }
  }
  return lines;
}

/**
 * The history of a working directory, most recent first (as node:readline expects).
 *
 * @param cwd The working directory.
 * @param options Folder or environment.
 * @returns Up to 1000 lines, newest first.
 *
 * @example
 * ```ts
 * import { appendHistory, loadHistory } from "./repl_history.ts";
 * const dir = Deno.makeTempDirSync();
 * appendHistory("/p", "first", { dir });
 * appendHistory("/p", "second", { dir });
 * if (loadHistory("/p", { dir })[0] !== "second") throw new Error();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function loadHistory(cwd: string, options: HistoryOptions = {}): string[] {
  return readLines(historyFile(cwd, options)).slice(-HISTORY_LIMIT).reverse();
}

/**
 * Appends a line to a working directory's history. Blank lines and a repeat of the last
 * line are skipped; past 1000 lines the oldest are dropped. Failures are ignored: history
 * is a convenience and must never stop the REPL.
 *
 * @param cwd The working directory.
 * @param line The line the user entered.
 * @param options Folder or environment.
 *
 * @example
 * ```ts
 * import { appendHistory, loadHistory } from "./repl_history.ts";
 * const dir = Deno.makeTempDirSync();
 * appendHistory("/p", "ls", { dir });
 * appendHistory("/p", "ls", { dir });
 * if (loadHistory("/p", { dir }).length !== 1) throw new Error();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function appendHistory(cwd: string, line: string, options: HistoryOptions = {}): void {
  if (line.trim() === "") return;
  const file = historyFile(cwd, options);
  try {
    const text = readText(file);
    const lines = parseLines(text);
    if (lines[lines.length - 1] === line) return;
    if (lines.length < HISTORY_LIMIT) {
      Deno.mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      // After a line cut by a crash, start on a fresh line so this one stays readable.
      const start = text === "" || text.endsWith("\n") ? "" : "\n";
      Deno.writeTextFileSync(file, `${start}${JSON.stringify(line)}\n`, {
        append: true,
        mode: 0o600,
      });
      return;
    }
    // Rewrite with the newest lines through a temp file, so a crash never truncates.
    const kept = [...lines.slice(-(HISTORY_LIMIT - 1)), line];
    const temp = `${file}.${crypto.randomUUID()}.tmp`;
    Deno.writeTextFileSync(temp, kept.map((l) => `${JSON.stringify(l)}\n`).join(""), {
      mode: 0o600,
    });
    Deno.renameSync(temp, file);
  } catch {
    // Best effort (read-only home, full disk): the REPL keeps working without history.
  }
}
