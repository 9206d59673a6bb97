// File URLs to paths and back without node:url, which loads the Node compatibility layer and
// its URL helpers (about 13 ms with node:path in an empty script) on harness's start-up path.
// On POSIX these are our own, checked against node:url by tests/platform/file_urls_test.ts;
// on Windows node:url's are loaded instead (drive letters and UNC hosts).

import { paths } from "./paths.ts";

/** The two conversions, as node:url names them. */
interface FileUrlApi {
  fileURLToPath(url: string | URL): string;
  pathToFileURL(path: string): URL;
}

// Characters node:url encodes before the URL parser sees the path: "%" would start an
// escape, "\" is a separator to the parser, the parser drops tabs and line breaks, and Deno's
// node:url encodes "[", "]", "^", "|" and "~" too (the same file either way; the same text).
const ENCODED: Record<string, string> = {
  "%": "%25",
  "\\": "%5C",
  "\n": "%0A",
  "\r": "%0D",
  "\t": "%09",
  "[": "%5B",
  "]": "%5D",
  "^": "%5E",
  "|": "%7C",
  "~": "%7E",
};

const posixFileUrls: FileUrlApi = {
  fileURLToPath: (url) => {
    const parsed = typeof url === "string" ? new URL(url) : url;
    if (parsed.protocol !== "file:") {
      throw new TypeError(`The URL must be of scheme file: "${parsed.href}"`);
    }
    if (parsed.hostname !== "") {
      throw new TypeError(`File URL host must be "localhost" or empty: "${parsed.href}"`);
    }
    if (/%2f/i.test(parsed.pathname)) {
      throw new TypeError(`File URL path must not include encoded / characters: "${parsed.href}"`);
    }
    return decodeURIComponent(parsed.pathname);
  },
  pathToFileURL: (path) => {
    let resolved = paths.resolve(path);
    if (path.endsWith("/") && !resolved.endsWith("/")) resolved += "/";
    const url = new URL("file:///");
    // The pathname setter encodes "?", "#" and what else a path may not hold as it is.
    url.pathname = resolved.replace(/[%\\\n\r\t[\]^|~]/g, (char) => ENCODED[char]!);
    return url;
  },
};

// A non-literal specifier: `deno run` would otherwise prepare node:url on every platform.
const NODE_URL = "node:url";

const fileUrls: FileUrlApi = Deno.build.os === "windows"
  ? await import(NODE_URL) as FileUrlApi
  : posixFileUrls;

/**
 * The path a file: URL names, as node:url's fileURLToPath gives it.
 *
 * @param url A file: URL (a string is parsed).
 * @throws TypeError for another scheme, a host, or an encoded "/" in the path.
 *
 * @example
 * ```ts
 * import { fileURLToPath } from "./file_urls.ts";
 * if (Deno.build.os !== "windows" && fileURLToPath("file:///a%20b/c") !== "/a b/c") {
 *   throw new Error();
 * }
 * ```
 */
export function fileURLToPath(url: string | URL): string {
  return fileUrls.fileURLToPath(url);
}

/**
 * The file: URL of a path (resolved against the working folder), as node:url's
 * pathToFileURL gives it.
 *
 * @example
 * ```ts
 * import { pathToFileURL } from "./file_urls.ts";
 * if (Deno.build.os !== "windows" && pathToFileURL("/a b#").href !== "file:///a%20b%23") {
 *   throw new Error();
 * }
 * ```
 */
export function pathToFileURL(path: string): URL {
  return fileUrls.pathToFileURL(path);
}
