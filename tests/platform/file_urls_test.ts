import assert from "node:assert/strict";
import * as nodeUrl from "node:url";
import { fileURLToPath, pathToFileURL } from "../../src/platform/file_urls.ts";

// Characters a path or URL may hold that the URL parser treats specially or node:url encodes,
// beside plain ones, multi-byte ones and escapes (valid, invalid, an encoded "/").
const PIECES = [
  ...["a", "/", "..", ".", " ", "ü", "😀", ":", "@", ";", "=", "&", "+", "$", ",", "'", '"'],
  ...["%", "\\", "\n", "\r", "\t", "?", "#", "[", "]", "^", "|", "`", "{", "}", "<", ">", "~"],
  ...["\u0000", "\u007f", "%2F", "%2f", "%41", "%E0", "%5C"],
];

/** Deterministic pseudo-random strings built from PIECES (a fixed seed, so failures repeat). */
function* samples(count: number): Generator<string> {
  let seed = 3;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: next(6) }, () => PIECES[next(PIECES.length)]!).join("");
    yield (next(2) === 0 ? "/" : "") + body;
  }
}

/** The result as text, or "throws" (messages differ: ours name the URL). */
function outcome(run: () => string | URL): string {
  try {
    return String(run());
  } catch (error) {
    return `throws ${error instanceof TypeError || error instanceof URIError}`;
  }
}

Deno.test("pathToFileURL() gives node:url's URL for every path", () => {
  for (const path of [...samples(20000), "", ".", "a/", "/a/../b/", "/~x[1]^|"]) {
    assert.equal(
      outcome(() => pathToFileURL(path).href),
      outcome(() => nodeUrl.pathToFileURL(path).href),
      JSON.stringify(path),
    );
  }
});

Deno.test("fileURLToPath() gives node:url's path, and refuses what it refuses", () => {
  for (const tail of samples(8000)) {
    for (const url of [`file://${tail}`, `file:///${tail}`, `file://localhost/${tail}`]) {
      assert.equal(
        outcome(() => fileURLToPath(url)),
        outcome(() => nodeUrl.fileURLToPath(url)),
        url,
      );
    }
  }
  // Another scheme, a host, an encoded separator: a path a check would miss is never made.
  for (const url of ["http://x/a", "file://host/a", "file:///a%2Fb", "file:///a%2fb"]) {
    assert.throws(() => fileURLToPath(url), TypeError, url);
    assert.throws(() => nodeUrl.fileURLToPath(url), TypeError, url);
  }
  assert.equal(fileURLToPath(new URL("file:///a%20b/c")), "/a b/c");
});
