// Every place git reads a program or more config from, as a repository's config names them:
// the folder `core.hooksPath` names (wherever it is), `core.fsmonitor`, `include.path` and
// `includeIf.*.path` (read in turn), filter, diff and merge drivers, aliases, editors, pagers
// and helpers whose command starts with a path. A model that could write one of these would
// run code the next time the user types `git status`, so the gate protects each of them.

import { paths } from "../platform/paths.ts";
import { entryExists } from "../platform/entry_exists.ts";

const { isAbsolute, join, resolve } = paths;

/** One `key = value` of a git config file; names lower-cased as git compares them. */
export interface GitConfigEntry {
  /** `section.subsection.key` with the section and key lower-cased. */
  name: string;
  value: string;
}

/** A file git would run or read, and the config key that names it. */
export interface GitProgramPath {
  path: string;
  /** e.g. `core.fsmonitor in /w/.git/config`. */
  source: string;
}

/** Keys whose value is a path to a folder or file, never a command. */
const PATH_KEYS = /^(core\.hookspath|include\.path|includeif\..*\.path)$/;
/** Keys whose value names another config file, read as git reads it. */
const INCLUDE_KEYS = /^(include\.path|includeif\..*\.path)$/;
/** Keys whose value is a place, not something git runs or reads as config. */
const NOT_PROGRAMS = /(^|\.)(url|pushurl|worktree)$|^(remote|branch|submodule)\./;

/** The value of a config line after `=`: quotes, escapes and comments as git reads them. */
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\" && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : next;
      continue;
    }
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c === "#" || c === ";")) break;
    out += c;
  }
  return out.trim();
}

/**
 * The entries of a git config file as git reads them: sections (`[core]`, `[remote "o"]`,
 * `[a.b]`), keys without a value (true), quoted values, escapes, comments and lines continued
 * with a backslash.
 *
 * @param text The file's text.
 * @returns The entries in order.
 *
 * @example
 * ```ts
 * import { parseGitConfig } from "./git_programs.ts";
 * const found = parseGitConfig('[core]\n\tfsMonitor = "./x.sh" # watch\n[filter "lfs"]\n\tclean = ./c %f\n');
 * const text = found.map((e) => `${e.name}=${e.value}`).join("|");
 * if (text !== "core.fsmonitor=./x.sh|filter.lfs.clean=./c %f") throw new Error(text);
 * ```
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  const lines = text.replace(/\r\n/g, "\n").replace(/\\\n/g, "").split("\n");
  let section = "";
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    const header = /^\[\s*([^\s\]"]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(trimmed);
    if (header) {
      const [name, ...dotted] = header[1]!.split(".");
      const sub = header[2] !== undefined
        ? header[2].replace(/\\(.)/g, "$1")
        : dotted.length > 0
        ? dotted.join(".").toLowerCase()
        : undefined;
      section = sub === undefined ? name!.toLowerCase() : `${name!.toLowerCase()}.${sub}`;
      const rest = header[3]!.trim();
      if (rest === "" || rest.startsWith("#") || rest.startsWith(";")) continue;
      // `[core] fsmonitor = x` on one line: the key follows the header.
      const inline = parseGitConfig(`[${header[1]}${header[2] ? ` "${header[2]}"` : ""}]\n${rest}`);
      entries.push(...inline);
      continue;
    }
    const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(trimmed);
    if (!match || section === "") continue;
    entries.push({
      name: `${section}.${match[1]!.toLowerCase()}`,
      value: match[2] === undefined ? "true" : configValue(match[2]),
    });
  }
  return entries;
}

/** `~/x` in the user's home, else `path` against `base`. */
function expand(path: string, base: string, home: string | undefined): string {
  if (path.startsWith("~/") && home !== undefined) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(base, path);
}

/** The first word of a command as a shell splits it (quotes removed), `!` of an alias dropped. */
function firstWord(command: string): string {
  const text = command.replace(/^!\s*/, "").trimStart();
  const match = /^(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|((?:\\.|[^\s'";&|<>()])+))/.exec(text);
  return (match?.[1] ?? match?.[2] ?? match?.[3] ?? "").replace(/\\(.)/g, "$1");
}

/** Options of {@linkcode gitProgramPaths}. */
export interface GitProgramOptions {
  /** Where relative commands and `core.hooksPath` start: the work tree's root. */
  workTree: string;
  /** For `~/` in paths. */
  home?: string;
}

/**
 * The files and folders git would run or read as config, named by the config files given
 * (and the files they include, read in turn; at most 16 files). Only paths that exist now are
 * returned, except `core.hooksPath`'s folder, which git would look in once it exists.
 *
 * @param configFiles The repository's config files (`.git/config`, `config.worktree`).
 * @param options The work tree's root and the home folder.
 * @returns Each path with the key that names it.
 *
 * @example
 * ```ts
 * import { gitProgramPaths } from "./git_programs.ts";
 * const w = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${w}/.git`);
 * await Deno.writeTextFile(`${w}/watch.sh`, "#!/bin/sh\n");
 * await Deno.writeTextFile(`${w}/.git/config`, "[core]\n\tfsmonitor = ./watch.sh\n\thooksPath = .husky\n");
 * const found = gitProgramPaths([`${w}/.git/config`], { workTree: w }).map((p) => p.path);
 * if (found.join() !== `${w}/watch.sh,${w}/.husky`) throw new Error(found.join());
 * await Deno.remove(w, { recursive: true });
 * ```
 */
export function gitProgramPaths(
  configFiles: readonly string[],
  options: GitProgramOptions,
): GitProgramPath[] {
  const found: GitProgramPath[] = [];
  const queue = [...configFiles];
  const read = new Set<string>();
  while (queue.length > 0 && read.size < 16) {
    const file = queue.shift()!;
    if (read.has(file)) continue;
    read.add(file);
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch {
      continue;
    }
    for (const entry of parseGitConfig(text)) {
      const source = `${entry.name} in ${file}`;
      if (PATH_KEYS.test(entry.name)) {
        const base = INCLUDE_KEYS.test(entry.name) ? resolve(file, "..") : options.workTree;
        const path = expand(entry.value, base, options.home);
        found.push({ path, source });
        if (INCLUDE_KEYS.test(entry.name)) queue.push(path);
        continue;
      }
      if (NOT_PROGRAMS.test(entry.name)) continue;
      const word = firstWord(entry.value);
      // A bare name is looked up on PATH, not in the work tree.
      if (!/[\\/]/.test(word) && !word.startsWith("~")) continue;
      const path = expand(word, options.workTree, options.home);
      if (entryExists(path)) found.push({ path, source });
    }
  }
  return found;
}
