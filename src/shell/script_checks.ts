// What a sed or awk script given on the command line can do beyond editing text: sed's `e`
// command and `s///e` flag run commands, `w` writes files; awk's `system()` and pipes run
// commands, `print > FILE` writes. Read well enough to tell, never run. A script this module
// cannot read is reported as such, so an allow rule does not vouch for it. Pure; used by
// program_effects.ts.

/** What a script does beyond reading its input and printing. */
export interface ScriptReport {
  /** It runs code no rule can name (`s/x/y/e`, awk `system(...)`). */
  code: boolean;
  /** Commands it runs by name (sed `e CMD`). */
  runs: string[];
  /** Files it writes by name (sed `w FILE`). */
  writes: string[];
  /** It writes files it does not name, or could not be read: no allow rule vouches for it. */
  asks: boolean;
}

function report(): ScriptReport {
  return { code: false, runs: [], writes: [], asks: false };
}

/**
 * Reads a sed script (GNU syntax): commands separated by `;` or newlines, with addresses,
 * `{ }` blocks, `s` and `y` with any delimiter, and commands that take the rest of the line.
 *
 * @param script The script text.
 * @returns What it does; `asks` when a command is not understood.
 *
 * @example
 * ```ts
 * import { readSedScript } from "./script_checks.ts";
 * const r = readSedScript("s/a/b/g; 1e touch x\n/x/w out.txt");
 * if (r.runs.join() !== "touch x" || r.writes.join() !== "out.txt" || r.code) throw new Error();
 * if (!readSedScript("s/.*\/rm x/e").code || readSedScript("s/e/E/;y/ab/cd/").asks) throw new Error();
 * ```
 */
export function readSedScript(script: string): ScriptReport {
  const out = report();
  const s = script;
  let i = 0;
  const restOfLine = () => {
    const end = s.indexOf("\n", i);
    const text = s.slice(i, end < 0 ? s.length : end);
    i = end < 0 ? s.length : end + 1;
    return text.trim();
  };
  const untilSeparator = () => {
    while (i < s.length && s[i] !== ";" && s[i] !== "\n" && s[i] !== "}") i++;
  };
  /** Reads a delimited part (`/regex/`) starting at the delimiter; false if unclosed. */
  const delimited = (): boolean => {
    const delimiter = s[i];
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return false;
    for (i++; i < s.length; i++) {
      if (s[i] === "\\") i++;
      else if (s[i] === delimiter) {
        i++;
        return true;
      } else if (s[i] === "\n") return false;
    }
    return false;
  };
  const address = (): boolean => {
    if (/\d/.test(s[i] ?? "")) {
      while (/[\d~]/.test(s[i] ?? "")) i++;
    } else if (s[i] === "$") i++;
    else if (s[i] === "/") {
      if (!delimited()) return false;
      while (/[IM]/.test(s[i] ?? "")) i++;
    } else if (s[i] === "\\") {
      i++;
      if (!delimited()) return false;
      while (/[IM]/.test(s[i] ?? "")) i++;
    } else if (s[i] === "+" || s[i] === "~") {
      i++;
      while (/\d/.test(s[i] ?? "")) i++;
    } else return true;
    return true;
  };
  while (i < s.length) {
    while (/[\s;}]/.test(s[i] ?? "")) i++;
    if (i >= s.length) break;
    if (s[i] === "#") {
      restOfLine();
      continue;
    }
    if (!address()) return { ...out, asks: true };
    while (s[i] === " " || s[i] === "\t") i++;
    if (s[i] === ",") {
      i++;
      while (s[i] === " ") i++;
      if (!address()) return { ...out, asks: true };
    }
    while (s[i] === " " || s[i] === "\t" || s[i] === "!") i++;
    const command = s[i++];
    if (command === undefined) return { ...out, asks: true };
    if (command === "{") continue;
    if ("=dDgGhHnNpPxzF".includes(command)) continue;
    if ("qQlL".includes(command)) {
      while (/[\s\d]/.test(s[i] ?? "") && s[i] !== "\n") i++;
      continue;
    }
    if ("aic".includes(command) || command === ":" || "rR".includes(command)) {
      if ("aic".includes(command)) {
        // `a\` continues on the next line(s), each ending in a backslash.
        while (true) {
          const line = restOfLine();
          if (!line.endsWith("\\") || i >= s.length) break;
        }
      } else restOfLine();
      continue;
    }
    if ("btTv".includes(command)) {
      untilSeparator();
      continue;
    }
    if (command === "w" || command === "W") {
      out.writes.push(restOfLine());
      continue;
    }
    if (command === "e") {
      const run = restOfLine();
      if (run === "") out.code = true; // runs the pattern space
      else out.runs.push(run);
      continue;
    }
    if (command === "s" || command === "y") {
      // Two parts: the closing delimiter of the first opens the second.
      if (!delimited()) return { ...out, asks: true };
      i--;
      if (!delimited()) return { ...out, asks: true };
      if (command === "y") continue;
      while (/[gpiImMe\d]/.test(s[i] ?? "")) {
        if (s[i] === "e") out.code = true; // runs the pattern space as a command
        i++;
      }
      if (s[i] === "w") {
        i++;
        out.writes.push(restOfLine());
      }
      continue;
    }
    return { ...out, asks: true };
  }
  return out;
}

/**
 * Reads an awk program: string and regex literals are skipped, then `system(`, a pipe (`|`,
 * not `||`) or `@load` means it runs code, and `print`/`printf` with `>` means it writes a
 * file it names by an expression (asks).
 *
 * @param program The program text.
 * @returns What it does.
 *
 * @example
 * ```ts
 * import { readAwkProgram } from "./script_checks.ts";
 * if (!readAwkProgram('BEGIN { system("x") }').code) throw new Error();
 * if (!readAwkProgram('{ print | "sh" }').code) throw new Error();
 * const plain = readAwkProgram('/a|b/ && $1 > 2 || x { print "system(|)" }');
 * if (plain.code || plain.asks) throw new Error(JSON.stringify(plain));
 * if (!readAwkProgram('{ print > "out" }').asks) throw new Error();
 * ```
 */
export function readAwkProgram(program: string): ScriptReport {
  const out = report();
  const code = stripAwkLiterals(program);
  if (code === undefined) return { ...out, asks: true };
  if (/\bsystem\s*\(/.test(code) || /(^|[^|])\|(?!\|)/.test(code) || /@load\b/.test(code)) {
    out.code = true;
  }
  // `print x > file` and `printf ... >> file` write; a comparison in print needs parentheses.
  if (/\bprintf?\b[^;{}\n]*>/.test(code)) out.asks = true;
  return out;
}

/** The program with string and regex literals emptied, or undefined when one is unclosed. */
function stripAwkLiterals(program: string): string | undefined {
  let out = "";
  let last = ""; // the last significant character outside literals
  for (let i = 0; i < program.length; i++) {
    const c = program[i]!;
    if (c === "#") {
      while (i < program.length && program[i] !== "\n") i++;
      out += "\n";
      last = "\n";
      continue;
    }
    // A slash starts a regex where an operand is expected, else it divides.
    const regex = c === "/" && (last === "" || /[(,;{}!~&|?:=\n]/.test(last));
    if (c === '"' || regex) {
      let k = i + 1;
      while (k < program.length && program[k] !== c) {
        if (program[k] === "\\") k++;
        if (program[k] === "\n") return undefined;
        k++;
      }
      if (k >= program.length) return undefined;
      out += `${c}${c}`;
      last = "x";
      i = k;
      continue;
    }
    out += c;
    if (!/\s/.test(c) || c === "\n") last = c;
  }
  return out;
}
