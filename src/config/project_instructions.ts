// Finds the instruction files every run puts in its system prompt: the user's AGENTS.md in
// harness's config folder, then one file per folder from the repository root down to the
// workspace (AGENTS.md, else the fallback names of `instruction_files`), nearest last.
// They are text for the model: nothing here grants a permission or changes a rule.

// The start-up path (the banner) reads these: no `node:` import (platform/paths.ts).
import { paths } from "../platform/paths.ts";
import { realPathIfExists } from "../platform/real_path_if_exists.ts";
import { entryExists } from "../platform/entry_exists.ts";

const { join, relative, resolve, sep } = paths;

/** The folder holding `path` (the root for the root). */
function dirname(path: string): string {
  return resolve(path, "..");
}

/** The names looked for in each folder, in order; the first one present is read. */
export const DEFAULT_INSTRUCTION_FILES: readonly string[] = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/** Bytes read of one file; the rest is cut with a marker (a repository's file could be huge). */
export const MAX_INSTRUCTION_BYTES = 32 * 1024;

/** One instruction file as the system prompt carries it. */
export interface InstructionFile {
  /** Absolute path of the file as found (before links are resolved). */
  path: string;
  /** How the prompt and /context name it: relative to the workspace, or `~/...` for the user's. */
  label: string;
  scope: "user" | "project";
  text: string;
  /** The file was longer than MAX_INSTRUCTION_BYTES and was cut. */
  truncated: boolean;
}

/** A file that was present but not read, and why (shown by /context). */
export interface SkippedInstructionFile {
  path: string;
  reason: string;
}

/** What loadInstructions found. */
export interface LoadedInstructions {
  files: InstructionFile[];
  skipped: SkippedInstructionFile[];
}

/** Where to look and what is refused. */
export interface InstructionOptions {
  /** File names per folder, first present wins (config `instruction_files`). */
  names?: readonly string[];
  /** harness's config folder, for the user's own file; left out: none. */
  userDir?: string;
  /** The user's home folder, to show the user's file as `~/...`. */
  home?: string;
  /**
   * Why a file may not be read, or undefined: the run's file gate (grants, --deny-read,
   * harness's hidden folders, entries known by identity). Asked of every file found, with its
   * scope; a refused file is skipped with the reason.
   */
  refused?: (path: string, scope: InstructionFile["scope"]) => string | undefined;
  maxBytes?: number;
}

/**
 * The folders from the repository root (the nearest ancestor holding `.git`) down to `cwd`,
 * root first; just `cwd` when it is in no repository.
 *
 * @example
 * ```ts
 * import { instructionFolders } from "./project_instructions.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${dir}/.git`);
 * Deno.mkdirSync(`${dir}/a/b`, { recursive: true });
 * const found = instructionFolders(`${dir}/a/b`).map((f) => f.slice(dir.length));
 * if (found.join(" ") !== " /a /a/b") throw new Error(found.join(" "));
 * ```
 */
export function instructionFolders(cwd: string): string[] {
  const start = resolve(cwd);
  const chain: string[] = [];
  for (let folder = start;; folder = dirname(folder)) {
    chain.unshift(folder);
    if (entryExists(join(folder, ".git"))) return chain;
    if (dirname(folder) === folder) return [start];
  }
}

/**
 * Reads the instruction files for a workspace: the user's (in `userDir`) first, then the
 * repository's from its root down to `cwd`. In each folder the first of `names` that is present
 * is read; an empty file counts as none. A file that is not a regular file, that links outside
 * the repository (a hostile repository's `AGENTS.md -> ~/.ssh/id_rsa` would otherwise go to
 * the model), or that `refused` refuses (the run's file gate) is skipped with the reason.
 *
 * @param cwd The workspace.
 * @param options Names, the user's folder and the deny check.
 * @returns The files in prompt order (nearest last) and the ones skipped.
 *
 * @example
 * ```ts
 * import { loadInstructions } from "./project_instructions.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/CLAUDE.md`, "Use tabs.");
 * const { files } = loadInstructions(dir);
 * if (files.length !== 1 || files[0]?.label !== "CLAUDE.md" || files[0].text !== "Use tabs.") {
 *   throw new Error(JSON.stringify(files));
 * }
 * ```
 */
export function loadInstructions(
  cwd: string,
  options: InstructionOptions = {},
): LoadedInstructions {
  const names = options.names ?? DEFAULT_INSTRUCTION_FILES;
  const maxBytes = options.maxBytes ?? MAX_INSTRUCTION_BYTES;
  const files: InstructionFile[] = [];
  const skipped: SkippedInstructionFile[] = [];
  const seen = new Set<string>();
  const workspace = resolve(cwd);
  const take = (folder: string, scope: InstructionFile["scope"], within: string | undefined) => {
    for (const name of names) {
      const path = join(folder, name);
      const found = inspect(path, within, (candidate) => options.refused?.(candidate, scope));
      if (found === "absent") continue;
      if (typeof found === "object") {
        skipped.push({ path, reason: found.reason });
        return;
      }
      if (seen.has(found)) return;
      seen.add(found);
      const read = readStart(found, maxBytes);
      if (read.text.trim() === "") continue;
      files.push({ path, label: labelOf(path, scope, workspace, options.home), scope, ...read });
      return;
    }
  };
  if (options.userDir !== undefined) take(options.userDir, "user", undefined);
  const folders = instructionFolders(workspace);
  const root = realPathIfExists(folders[0]!) ?? folders[0]!;
  for (const folder of folders) take(folder, "project", root);
  return { files, skipped };
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel));
}

/**
 * What a candidate path is: absent, a reason it is refused, or its real path to read. A
 * project file must really be inside the repository (`within`); the user's may link anywhere.
 */
function inspect(
  path: string,
  within: string | undefined,
  refused: (path: string) => string | undefined,
): "absent" | { reason: string } | string {
  if (!entryExists(path)) return "absent";
  const real = realPathIfExists(path);
  if (real === undefined) return { reason: "a link to nothing" };
  if (within !== undefined && !isInside(within, real)) {
    return { reason: `a link out of the repository (to "${real}"): not read` };
  }
  const reason = refused(path);
  if (reason !== undefined) return { reason: `${reason}: not read` };
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(real);
  } catch (error) {
    return { reason: `cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!info.isFile) return { reason: "not a regular file: not read" };
  return real;
}

/** The first `maxBytes` of a file as UTF-8 text. */
function readStart(path: string, maxBytes: number): { text: string; truncated: boolean } {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path, { read: true });
    const buffer = new Uint8Array(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const n = file.readSync(buffer.subarray(filled));
      if (n === null || n === 0) break;
      filled += n;
    }
    const truncated = filled > maxBytes;
    // A cut in the middle of a character decodes to U+FFFD, which the prompt can carry.
    let text = new TextDecoder().decode(buffer.subarray(0, Math.min(filled, maxBytes)));
    if (text.startsWith("\uFEFF")) text = text.slice(1);
    if (truncated) {
      text = `${text}\n[... cut here: the file is longer than ${maxBytes} bytes]`;
    }
    return { text: text.replace(/\r\n/g, "\n").trimEnd(), truncated };
  } catch {
    return { text: "", truncated: false };
  } finally {
    file?.close();
  }
}

function labelOf(
  path: string,
  scope: InstructionFile["scope"],
  workspace: string,
  home: string | undefined,
): string {
  if (scope === "project") return relative(workspace, path).replaceAll("\\", "/") || path;
  if (home !== undefined && isInside(home, path)) {
    return `~/${relative(home, path).replaceAll("\\", "/")}`;
  }
  return path;
}
