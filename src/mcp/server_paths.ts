// What a stdio MCP server's own entry names, made readable in its command sandbox without a
// hand-written `sandbox` entry (issue 45): the program (where PATH finds it, where its links
// lead, and the interpreter its `#!` line names) and the files and folders its arguments name,
// each widened to the package it belongs to so that its imports resolve. Never the root, the
// home folder or a folder above it; --deny-read still hides what it covers.

import { basename, dirname, join, resolve } from "node:path";
import { realPathIfExists } from "../platform/real_path_if_exists.ts";
import { SYSTEM_READ_PATHS } from "../sandbox/commands/command_sandbox_rules.ts";

/** Files that mark the root of a package, a project or a virtual environment. */
const PACKAGE_MARKERS = [
  "package.json",
  "pyvenv.cfg",
  "pyproject.toml",
  "setup.py",
  "Cargo.toml",
  "go.mod",
  "deno.json",
];

/** What the paths are resolved against. */
export interface NamedPathsOptions {
  /** The folder the server starts in (its entry's `cwd`, resolved). */
  cwd: string;
  /** The environment the server's command is looked up with (PATH) and `~` (HOME). */
  env: Readonly<Record<string, string | undefined>>;
}

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

function stat(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}

/** Where PATH (or the command's own path) finds an executable `command`. */
export function findProgram(
  command: string,
  options: NamedPathsOptions,
): string | undefined {
  if (command.includes("/")) {
    const path = resolve(options.cwd, command);
    return stat(path)?.isFile ? path : undefined;
  }
  for (const dir of (options.env.PATH ?? "").split(":")) {
    if (dir === "") continue;
    const path = join(resolve(options.cwd, dir), command);
    const info = stat(path);
    if (info?.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return path;
  }
  return undefined;
}

/** The interpreter a script's `#!` line names (`env NAME` looked up on PATH), if any. */
function interpreterOf(file: string, options: NamedPathsOptions): string | undefined {
  let head: string;
  try {
    using handle = Deno.openSync(file);
    const bytes = new Uint8Array(256);
    const n = handle.readSync(bytes) ?? 0;
    head = new TextDecoder().decode(bytes.subarray(0, n));
  } catch {
    return undefined;
  }
  if (!head.startsWith("#!")) return undefined;
  const words = head.slice(2).split("\n")[0]!.trim().split(/\s+/);
  const [program, ...rest] = words;
  if (program === undefined) return undefined;
  if (basename(program) !== "env") return program;
  const name = rest.find((word) => !word.startsWith("-"));
  return name === undefined ? undefined : findProgram(name, options);
}

/** Whether `path` is too wide to open for a server: the root, home, or a folder above home. */
function tooWide(path: string, home: string | undefined): boolean {
  return path === "/" || (home !== undefined && isUnder(home, path));
}

/**
 * The folders a file's imports resolve from: its package's root (the nearest folder above it
 * with a package marker), and every `node_modules` folder above that, up to the outermost one
 * (hoisted dependencies); the file itself when no package holds it.
 */
function packageOf(file: string, home: string | undefined): string[] {
  let root: string | undefined;
  for (let dir = dirname(file); !tooWide(dir, home); dir = dirname(dir)) {
    if (PACKAGE_MARKERS.some((marker) => stat(join(dir, marker))?.isFile)) {
      root = dir;
      break;
    }
  }
  if (root === undefined) return [file];
  const outer = root.split("/").indexOf("node_modules");
  if (outer !== -1) return [root.split("/").slice(0, outer + 1).join("/")];
  const out = [root];
  for (let dir = dirname(root); !tooWide(dir, home); dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    if (stat(modules)?.isDirectory) out.push(modules);
  }
  return out;
}

/** A path the system folders already show (the command sandbox always reads them). */
function isSystem(path: string): boolean {
  return SYSTEM_READ_PATHS.some((folder) => isUnder(path, folder));
}

/**
 * The paths that let the server's program start: its folder on PATH, its package (or, for a
 * program in a prefix's `bin`, the prefix's `lib`), its `#!` interpreter.
 */
function programPaths(command: string, options: NamedPathsOptions, depth = 0): string[] {
  const found = findProgram(command, options);
  if (found === undefined) return [];
  const home = options.env.HOME;
  const real = realPathIfExists(found) ?? found;
  const out: string[] = [];
  // The folder it was found in keeps its links working (bin/npx -> ../lib/...).
  const folder = dirname(found);
  if (!isSystem(folder) && !tooWide(folder, home)) out.push(folder);
  if (!isSystem(real)) {
    out.push(...packageOf(real, home));
    // An interpreter installed under a prefix (pyenv, uv's Pythons) reads its library there.
    const lib = join(dirname(dirname(real)), "lib");
    if (basename(dirname(real)) === "bin" && !tooWide(lib, home) && stat(lib)?.isDirectory) {
      out.push(lib);
    }
  }
  const interpreter = depth === 0 ? interpreterOf(real, options) : undefined;
  if (interpreter !== undefined) out.push(...programPaths(interpreter, options, depth + 1));
  return out;
}

/** An argument's path, if it names one that exists (`/abs`, `./rel`, `~/x`, `--opt=/abs`). */
function argumentPath(arg: string, options: NamedPathsOptions): string | undefined {
  const value = /^--?[\w-]+=(.*)$/.exec(arg)?.[1] ?? arg;
  const home = options.env.HOME;
  let path: string;
  if (value.startsWith("~/") && home) path = join(home, value.slice(2));
  else if (value.startsWith("/")) path = value;
  else if (value.startsWith("./") || value.startsWith("../") || value.includes("/")) {
    path = resolve(options.cwd, value);
  } else return undefined;
  return stat(path) === undefined ? undefined : resolve(path);
}

/**
 * The paths a stdio server's entry names that its command sandbox should read: its program
 * and the interpreter of a script program, the files and folders its arguments name (a file
 * with its package and the `node_modules` folders its imports resolve from), and the entry's
 * `cwd`. System folders are left out (always readable), and so are the root, the home folder
 * and the folders above it.
 *
 * @example
 * ```ts
 * import { namedPaths } from "./server_paths.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${dir}/srv/node_modules/dep`, { recursive: true });
 * Deno.writeTextFileSync(`${dir}/srv/package.json`, "{}");
 * Deno.mkdirSync(`${dir}/srv/dist`);
 * Deno.writeTextFileSync(`${dir}/srv/dist/index.js`, "");
 * const paths = namedPaths({ command: "node", args: [`${dir}/srv/dist/index.js`, "stdio"] }, {
 *   cwd: dir, env: { PATH: "/usr/bin", HOME: "/nonexistent" },
 * });
 * if (!paths.includes(`${dir}/srv`)) throw new Error(paths.join());
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function namedPaths(
  config: { command: string; args?: readonly string[]; cwd?: string },
  options: NamedPathsOptions,
): string[] {
  const home = options.env.HOME;
  const out = programPaths(config.command, options);
  for (const arg of config.args ?? []) {
    const path = argumentPath(arg, options);
    if (path === undefined || isSystem(path) || tooWide(path, home)) continue;
    out.push(...(stat(path)?.isDirectory ? [path] : packageOf(path, home)));
  }
  // An entry's own `cwd` is named too (options.cwd is that folder, resolved).
  if (config.cwd !== undefined && !tooWide(options.cwd, home) && !isSystem(options.cwd)) {
    out.push(options.cwd);
  }
  // A path inside another one adds nothing.
  const unique = [...new Set(out)];
  return unique.filter((path) => !unique.some((other) => other !== path && isUnder(path, other)));
}
