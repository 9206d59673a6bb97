// The path functions the start-up path needs (grant values, config and data folders), free
// of `node:` imports: the first `node:` module a Deno process loads costs about 8 ms (the
// Node compatibility layer starts), a third of the REPL's start-up budget. On POSIX these are
// our own, checked against node:path.posix by tests/platform/paths_test.ts; on Windows, node:path's
// win32 functions are loaded instead (drive letters and UNC shares are not worth redoing).

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
};

// A non-literal specifier: `deno run` would otherwise load node:path's module graph on
// every platform before running anything.
const NODE_PATH = "node:path";

/** Path functions for this platform. */
export const paths: PathApi = Deno.build.os === "windows"
  ? (await import(NODE_PATH)).win32 as PathApi
  : posixPath;
