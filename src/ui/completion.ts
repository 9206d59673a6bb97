// Tab completion at the REPL prompt: `/` completes slash commands (built-in and custom),
// `@` completes paths of the workspace as the file tools name them: folders end in `/`,
// files and folders .gitignore excludes are left out, and nothing outside the workspace is
// offered. Folders are listed through the run's file gate, so a name it hides (--deny-read,
// harness's folders, a link out of the read grant) never reaches the screen; before the gate
// is known, no path is offered. A mention is still read through the sandbox.

import { join } from "node:path";
import type { FileGate } from "../gate/file_gate.ts";
import { readGatedDirSync, readGatedTextFileSync } from "../gate/gated_files.ts";
import { GitignoreRules } from "../tools/search/gitignore_rules.ts";

/** Most completions offered at once. */
const MAX_COMPLETIONS = 200;

/** What completion knows: the command names, the workspace and the run's file gate. */
export interface CompletionSource {
  /** Slash command names without the `/`. */
  commands(): readonly string[];
  workspace: string;
  /** The run's file gate; paths are offered only once it is known. */
  gate?: FileGate;
}

/**
 * A node:readline completer: the candidates for the word before the cursor and that word.
 *
 * @param line The line up to the cursor.
 * @param source Command names and the workspace.
 * @returns `[candidates, word]` as readline's `completer` returns them.
 *
 * @example
 * ```ts
 * import { complete } from "./completion.ts";
 * const source = { commands: () => ["help", "history", "review"], workspace: "/nowhere" };
 * const [found, word] = complete("/h", source);
 * if (found.join() !== "/help,/history" || word !== "/h") throw new Error(found.join());
 * ```
 */
export function complete(line: string, source: CompletionSource): [string[], string] {
  if (/^\/[^\s]*$/.test(line)) {
    const prefix = line.slice(1);
    const names = source.commands().filter((name) => name.startsWith(prefix)).sort();
    return [names.map((name) => `/${name}`), line];
  }
  const word = /(?:^|\s)(@(?:[^\s\\]|\\\s)*)$/.exec(line)?.[1];
  if (word === undefined) return [[], line];
  const typed = word.slice(1).replace(/\\(\s)/g, "$1");
  if (source.gate === undefined) return [[], word];
  const found = completePath(typed, source.workspace, source.gate);
  return [found.map((path) => `@${escapeSpaces(path)}`), word];
}

function escapeSpaces(path: string): string {
  return path.replace(/(\s)/g, "\\$1");
}

/**
 * The workspace paths that start with `typed`: entries of its folder the gate lets the
 * session list, folders with a trailing `/`, without what .gitignore excludes, `.git`, or
 * (unless typed) hidden names.
 *
 * @param typed A workspace-relative path being typed.
 * @param workspace The workspace folder.
 * @param gate The run's file gate.
 * @returns The matching paths, sorted.
 */
export function completePath(typed: string, workspace: string, gate: FileGate): string[] {
  const slash = typed.lastIndexOf("/");
  const folder = slash === -1 ? "" : typed.slice(0, slash + 1);
  const start = typed.slice(slash + 1);
  if (typed.startsWith("/") || folder.split("/").some((part) => part === "..")) return [];
  const entries = readGatedDirSync(gate, join(workspace, folder));
  if (entries === undefined) return [];
  const ignored = gitignoreOf(workspace, folder, gate);
  const found: string[] = [];
  for (const entry of entries) {
    const { name } = entry;
    if (!name.startsWith(start) || name === ".git") continue;
    if (name.startsWith(".") && !start.startsWith(".")) continue;
    const isDir = entry.isDirectory ||
      (entry.isSymlink && isFolder(join(workspace, folder, name)));
    if (ignored({ path: `${folder}${name}`, name, isDir })) continue;
    found.push(`${folder}${name}${isDir ? "/" : ""}`);
    if (found.length >= MAX_COMPLETIONS) break;
  }
  return found.sort();
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Whether .gitignore files from the workspace root down to `folder` exclude an entry of
 * `folder` (the deepest file that has a verdict decides, as in git).
 */
function gitignoreOf(
  workspace: string,
  folder: string,
  gate: FileGate,
): (entry: { path: string; name: string; isDir: boolean }) => boolean {
  const levels: { rules: GitignoreRules; from: number }[] = [];
  const parts = folder.split("/").filter((part) => part !== "");
  for (let depth = 0; depth <= parts.length; depth++) {
    const dir = parts.slice(0, depth).join("/");
    const text = readGatedTextFileSync(gate, join(workspace, dir, ".gitignore"));
    if (text === undefined) continue; // none at this level, or one the gate refuses
    levels.push({ rules: GitignoreRules.parse(text), from: dir === "" ? 0 : dir.length + 1 });
  }
  return (entry) => {
    for (let i = levels.length - 1; i >= 0; i--) {
      const verdict = levels[i]!.rules.match(entry, levels[i]!.from);
      if (verdict !== undefined) return verdict;
    }
    return false;
  };
}
