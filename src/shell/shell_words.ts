// Word-level pieces of shell syntax, pure: brace expansion (`{rm,-rf,x}` is three words) and
// ANSI-C strings (`$'\x72m'` is `rm`). Words carry quoted characters escaped with a
// backslash, so braces that were quoted do not expand. Used by split_command.ts.

/** Words one brace expansion may produce before it counts as too many. */
export const MAX_BRACE_WORDS = 256;

/** Escapes every character with a backslash (quoted text, for brace expansion). */
export function escapeAll(text: string): string {
  return text.replace(/[\s\S]/g, "\\$&");
}

/** Removes backslash escapes. */
export function unescape(text: string): string {
  return text.replace(/\\([\s\S])/g, "$1");
}

/**
 * Bash brace expansion on a word whose quoted characters are backslash-escaped: `a{b,c}` is
 * `ab ac`, `{1..3}` is `1 2 3`. Undefined when it would produce too many words.
 *
 * @param word A word with its quoted characters escaped (see {@link escapeAll}).
 * @returns The words it expands to, still escaped; undefined past {@link MAX_BRACE_WORDS}.
 *
 * @example
 * ```ts
 * import { expandBraces } from "./shell_words.ts";
 * if (expandBraces("{rm,-rf,x}")?.join(" ") !== "rm -rf x") throw new Error();
 * if (expandBraces("a\\{b,c}")?.length !== 1) throw new Error();
 * ```
 */
export function expandBraces(word: string): string[] | undefined {
  const out: string[] = [];
  const pending = [word];
  while (pending.length > 0) {
    const w = pending.pop()!;
    const group = findBraceGroup(w);
    if (!group) {
      out.push(w);
      if (out.length > MAX_BRACE_WORDS) return undefined;
      continue;
    }
    const [open, close, items] = group;
    for (const item of items.reverse()) pending.push(w.slice(0, open) + item + w.slice(close + 1));
    if (pending.length > MAX_BRACE_WORDS) return undefined;
  }
  return out;
}

/** The first `{...}` that expands: its bounds and its items, or undefined. */
function findBraceGroup(w: string): [number, number, string[]] | undefined {
  for (let open = 0; open < w.length; open++) {
    if (w[open] === "\\") {
      open++;
      continue;
    }
    if (w[open] !== "{" || w[open - 1] === "$") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = open + 1; j < w.length; j++) {
      const c = w[j];
      if (c === "\\") j++;
      else if (c === "{") depth++;
      else if (c === "}" && depth > 0) depth--;
      else if (c === "," && depth === 0) commas.push(j);
      else if (c === "}") {
        const body = w.slice(open + 1, j);
        if (commas.length > 0) {
          const items: string[] = [];
          let from = open + 1;
          for (const at of [...commas, j]) {
            items.push(w.slice(from, at));
            from = at + 1;
          }
          return [open, j, items];
        }
        const range = braceRange(body);
        if (range) return [open, j, range];
        break;
      }
    }
  }
  return undefined;
}

function braceRange(body: string): string[] | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(body);
  const m = numbers ?? letters;
  if (!m) return undefined;
  const from = numbers ? Number(m[1]) : m[1]!.charCodeAt(0);
  const to = numbers ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)));
  if (Math.abs(to - from) / step > MAX_BRACE_WORDS) return Array(MAX_BRACE_WORDS + 2).fill("");
  const items: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    items.push(numbers ? String(v) : String.fromCharCode(v));
  }
  return items;
}

const ANSI_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

const ANSI_CODE = /x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c[\s\S]/y;

/**
 * Decodes the body of a bash ANSI-C string `$'...'` starting at `start` (just after the
 * opening quote): `\n`, `\x72`, `\162`, `\u00e9`, `\cA`, `\'` and the rest.
 *
 * @param text The text holding the string.
 * @param start Index just after `$'`.
 * @returns The decoded text, the index after the closing quote, and whether one was found.
 *
 * @example
 * ```ts
 * import { decodeAnsiC } from "./shell_words.ts";
 * const d = decodeAnsiC("$'\\x72\\155' x", 2);
 * if (d.text !== "rm" || d.end !== 11 || !d.closed) throw new Error(JSON.stringify(d));
 * ```
 */
export function decodeAnsiC(
  text: string,
  start: number,
): { text: string; end: number; closed: boolean } {
  let out = "";
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") return { text: out, end: i + 1, closed: true };
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    ANSI_CODE.lastIndex = i + 1;
    const code = ANSI_CODE.exec(text)?.[0];
    if (code) {
      if (code[0] === "c") out += String.fromCharCode(code.charCodeAt(1) & 31);
      else if (/^[0-7]/.test(code)) out += String.fromCharCode(parseInt(code, 8) & 255);
      else out += String.fromCodePoint(Math.min(parseInt(code.slice(1), 16), 0x10ffff));
      i += 1 + code.length;
    } else {
      const e = text[i + 1] ?? "";
      out += ANSI_ESCAPES[e] ?? `\\${e}`;
      i += 2;
    }
  }
  return { text: out, end: text.length, closed: false };
}
