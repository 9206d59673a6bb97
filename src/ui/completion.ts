// Tab completion at the REPL prompt: `/` completes slash commands (built-in and custom),
// `@` completes paths of the workspace as the file tools name them: folders end in `/`,
// files and folders .gitignore excludes are left out, and nothing outside the workspace is
// offered. Names only reach the user's screen; a mention is still read through the sandbox.

import { join } from "node:path";
import { GitignoreRules } from "../tools/search/gitignore_rules.ts";

/** Most completions offered at once. */
const MAX_COMPLETIONS = 200;

/** What completion knows: the command names and the workspace. */
export interface CompletionSource {
  /** Slash command names without the `/`. */
  commands(): readonly string[];
  workspace: string;
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
  return [completePath(typed, source.workspace).map((path) => `@${escapeSpaces(path)}`), word];
}

function escapeSpaces(path: string): string {
  return path.replace(/(\s)/g, "\\$1");
}

/**
 * The workspace paths that start with `typed`: entries of its folder, folders with a
 * trailing `/`, without what .gitignore excludes, `.git`, or (unless typed) hidden names.
 *
 * @param typed A workspace-relative path being typed.
 * @param workspace The workspace folder.
 * @returns The matching paths, sorted.
 */
export function completePath(typed: string, workspace: string): string[] {
  const slash = typed.lastIndexOf("/");
  const folder = slash === -1 ? "" : typed.slice(0, slash + 1);
  const start = typed.slice(slash + 1);
  if (typed.startsWith("/") || folder.split("/").some((part) => part === "..")) return [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(join(workspace, folder))];
  } catch {
    return [];
  }
  const ignored = gitignoreOf(workspace, folder);
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
): (entry: { path: string; name: string; isDir: boolean }) => boolean {
  const levels: { rules: GitignoreRules; from: number }[] = [];
  const parts = folder.split("/").filter((part) => part !== "");
  for (let depth = 0; depth <= parts.length; depth++) {
    const dir = parts.slice(0, depth).join("/");
    try {
      const text = Deno.readTextFileSync(join(workspace, dir, ".gitignore"));
      levels.push({ rules: GitignoreRules.parse(text), from: dir === "" ? 0 : dir.length + 1 });
    } catch {
      // No .gitignore at this level.
    }
  }
  return (entry) => {
    for (let i = levels.length - 1; i >= 0; i--) {
      const verdict = levels[i]!.rules.match(entry, levels[i]!.from);
      if (verdict !== undefined) return verdict;
    }
    return false;
  };
}
