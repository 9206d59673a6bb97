// The path functions harness's start-up path needs, free of `node:` imports: the first
// `node:` module a Deno process loads costs about 8 ms (the Node compatibility layer
// starts), node:path about 10 ms in an empty script. On POSIX these are our own, checked
// against node:path.posix by tests/platform/paths_test.ts; on Windows, node:path's win32
// functions are loaded instead (drive letters and UNC shares are not worth redoing). The
// named exports carry node:path's names, so a module switches with its import line.

/** The subset of node:path used here. */
export interface PathApi {
  readonly sep: string;
  isAbsolute(path: string): boolean;
  /** Joins the parts and normalises; empty parts are skipped; no parts is ".". */
  join(...parts: string[]): string;
  /** An absolute, normalised path: the parts resolved right to left against the cwd. */
  resolve(...parts: string[]): string;
  /** The path from `from` to `to` ("" when they are the same folder). */
  relative(from: string, to: string): string;
  /** The path without its last segment ("." when there is none, "/" for the root). */
  dirname(path: string): string;
  /** The last segment, trailing separators ignored. */
  basename(path: string): string;
  /** The last segment's extension from its last dot ("" when it has none). */
  extname(path: string): string;
  /** `.` and empty segments go, `..` climbs; a trailing separator stays. */
  normalize(path: string): string;
  /** The separator of a PATH-like list. */
  readonly delimiter: string;
}

/** Normalises a POSIX path: `.` and empty segments go, `..` climbs (not above the root). */
function normalise(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(segment);
  }
  const body = out.join("/");
  const trailing = path.endsWith("/") && body !== "" ? "/" : "";
  if (absolute) return `/${body}${trailing}`;
  return body === "" ? (path.endsWith("/") ? "./" : ".") : body + trailing;
}

/**
 * POSIX paths, as node:path.posix computes them.
 *
 * @example
 * ```ts
 * import { posixPath } from "./paths.ts";
 * if (posixPath.resolve("/w", "src/../lib") !== "/w/lib") throw new Error();
 * if (posixPath.relative("/w", "/w/a/b") !== "a/b") throw new Error();
 * if (posixPath.join("a", "", "../b") !== "b") throw new Error();
 * ```
 */
export const posixPath: PathApi = {
  sep: "/",
  delimiter: ":",
  isAbsolute: (path) => path.startsWith("/"),
  join: (...parts) => {
    const joined = parts.filter((part) => part !== "").join("/");
    return joined === "" ? "." : normalise(joined);
  },
  resolve: (...parts) => {
    let resolved = "";
    for (let i = parts.length - 1; i >= 0 && !resolved.startsWith("/"); i--) {
      const part = parts[i]!;
      if (part !== "") resolved = resolved === "" ? part : `${part}/${resolved}`;
    }
    if (!resolved.startsWith("/")) resolved = `${Deno.cwd()}/${resolved}`;
    const normal = normalise(resolved);
    return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal; // "/a/" is "/a"
  },
  relative: (from, to) => {
    const a = posixPath.resolve(from).split("/").filter(Boolean);
    const b = posixPath.resolve(to).split("/").filter(Boolean);
    let common = 0;
    while (common < a.length && common < b.length && a[common] === b[common]) common++;
    return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
  },
  dirname: (path) => {
    // node:path's rule, "//a" giving "//" included: the last separator before the last name.
    let end = -1;
    let inName = false;
    for (let i = path.length - 1; i >= 1; i--) {
      if (path[i] !== "/") inName = true;
      else if (inName) {
        end = i;
        break;
      }
    }
    if (end === -1) return path.startsWith("/") ? "/" : ".";
    if (path.startsWith("/") && end === 1) return "//";
    return path.slice(0, end);
  },
  basename: (path) => lastName(path).name,
  extname: (path) => {
    const { name } = lastName(path);
    const dot = name.lastIndexOf(".");
    // No dot, a leading one (".profile") and ".." name no extension.
    return dot <= 0 || name === ".." ? "" : name.slice(dot);
  },
  normalize: (path) => normalise(path),
};

/** The last segment of a POSIX path, trailing separators ignored. */
function lastName(path: string): { name: string } {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return { name: path.slice(path.lastIndexOf("/", end - 1) + 1, end) };
}

// A non-literal specifier: `deno run` would otherwise load node:path's module graph on
// every platform before running anything.
const NODE_PATH = "node:path";

/** Path functions for this platform. */
export const paths: PathApi = Deno.build.os === "windows"
  ? (await import(NODE_PATH)).win32 as PathApi
  : posixPath;

/** node:path's names for this platform's functions (see {@link PathApi}). */
export const { sep, delimiter } = paths;
/** @see PathApi.join */
export const join = paths.join;
/** @see PathApi.resolve */
export const resolve = paths.resolve;
/** @see PathApi.relative */
export const relative = paths.relative;
/** @see PathApi.isAbsolute */
export const isAbsolute = paths.isAbsolute;
/** @see PathApi.dirname */
export const dirname = paths.dirname;
/** @see PathApi.basename */
export const basename = paths.basename;
/** @see PathApi.extname */
export const extname = paths.extname;
/** @see PathApi.normalize */
export const normalize = paths.normalize;
