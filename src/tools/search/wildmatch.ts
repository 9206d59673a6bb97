// Translates git's wildmatch globs (as .gitignore lines use them, with FNM_PATHNAME) to
// regular-expression source: `*` and `?` stop at `/`, `**` spans folders, `[...]` classes
// follow git's bracket rules, and a malformed pattern matches nothing.

/** The POSIX classes wildmatch knows, as JavaScript class members (ASCII only, never `/`). */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  blank: " \\t",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "!-.0-~",
  lower: "a-z",
  print: " -.0-~",
  punct: "!-.:-@\\[-`{-~",
  space: " \\t\\n\\r",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
};

/** A regular expression that matches nothing: git gives up on malformed patterns. */
export const NEVER = "[]";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function escapeClassMember(char: string): string {
  return "\\]^-[".includes(char) ? `\\${char}` : char;
}

/**
 * Translates the bracket expression starting at `pattern[start] === "["`, as git's
 * wildmatch reads it: `!` or `^` negates, a leading `]` is a member, `\` escapes, `a-z`
 * ranges, `[:alpha:]` classes. Returns null when it never closes or names an unknown class
 * (the whole pattern then matches nothing).
 */
function scanBracket(pattern: string, start: number): { end: number; source: string } | null {
  let i = start + 1;
  let negated = false;
  if (pattern[i] === "!" || pattern[i] === "^") {
    negated = true;
    i++;
  }
  let body = "";
  let prev = ""; // the member a following `-` would start a range from
  for (;;) {
    const char = pattern[i];
    if (char === undefined) return null;
    if (char === "\\") {
      const escaped = pattern[++i];
      if (escaped === undefined) return null;
      body += escapeClassMember(escaped);
      prev = escaped;
    } else if (char === "-" && prev !== "" && i + 1 < pattern.length && pattern[i + 1] !== "]") {
      let to = pattern[++i]!;
      if (to === "\\") to = pattern[++i] ?? "";
      // git tests the lower bound as a member first, so `[c-a]` still matches `c`.
      if (to !== "" && prev <= to) body += `-${escapeClassMember(to)}`;
      prev = "";
    } else if (char === "[" && pattern[i + 1] === ":") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return null;
      if (close > i + 2 && pattern[close - 1] === ":") {
        const members = POSIX_CLASSES[pattern.slice(i + 2, close - 1)];
        if (members === undefined) return null;
        body += members;
        prev = "";
        i = close;
      } else {
        body += "\\[";
        prev = "[";
      }
    } else {
      body += escapeClassMember(char);
      prev = char;
    }
    i++;
    if (pattern[i] === "]") {
      if (negated) return { end: i, source: `[^/${body}]` };
      const source = `[${body}]`;
      // A class never matches the path separator, whatever its members say.
      return { end: i, source: new RegExp(source).test("/") ? `(?!/)${source}` : source };
    }
  }
}

/**
 * Translates a gitignore glob (without `!`, leading `/` or trailing `/`) to the source of a
 * regular expression matching the whole subject.
 */
export function globSource(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length;) {
    const char = glob[i]!;
    if (char === "\\") {
      out += escapeRegExp(glob[i + 1] ?? "");
      i += 2;
    } else if (char === "?") {
      out += "[^/]";
      i++;
    } else if (char === "[") {
      const bracket = scanBracket(glob, i);
      if (bracket === null) return NEVER;
      out += bracket.source;
      i = bracket.end + 1;
    } else if (char === "*") {
      let end = i;
      while (glob[end] === "*") end++;
      const segmentStart = i === 0 || glob[i - 1] === "/";
      const segmentEnd = end === glob.length || glob[end] === "/";
      if (end - i >= 2 && segmentStart && segmentEnd) {
        if (end === glob.length) {
          out += "[\\s\\S]*"; // `a/**` (everything inside a) or a lone `**`
        } else {
          out += "(?:[\\s\\S]*/)?"; // `**/b` or `a/**/b`: zero or more folders
          end++; // the `/` is part of the globstar
        }
      } else {
        out += "[^/]*";
      }
      i = end;
    } else {
      out += escapeRegExp(char);
      i++;
    }
  }
  return out;
}
