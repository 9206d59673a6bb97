// Reads Python literals and pythonic call lists as Llama 3.2 / Llama 4 write them:
// `[get_weather(city="Tokyo", days=3), ping()]`. Values are Python literals (strings,
// numbers, True/False/None, lists, tuples, dicts); positional arguments are not calls.

import { MAX_JSON_DEPTH } from "../../platform/json_depth.ts";

class NotPython extends Error {}

class PythonReader {
  pos: number;
  /** Open brackets around the current value; past MAX_JSON_DEPTH the text is refused. */
  depth = 0;
  constructor(readonly src: string, start = 0) {
    this.pos = start;
  }

  space(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }

  peek(): string {
    return this.src[this.pos] ?? "";
  }

  expect(ch: string): void {
    this.space();
    if (this.src[this.pos] !== ch) throw new NotPython();
    this.pos++;
  }

  identifier(): string {
    this.space();
    const match = /^[A-Za-z_][\w.-]*/.exec(this.src.slice(this.pos));
    if (!match) throw new NotPython();
    this.pos += match[0].length;
    return match[0];
  }

  /** Reads comma-separated items until `close`, allowing a trailing comma. */
  items<T>(close: string, item: () => T): T[] {
    const out: T[] = [];
    for (;;) {
      this.space();
      if (this.peek() === close) {
        this.pos++;
        return out;
      }
      out.push(item());
      this.space();
      if (this.peek() === ",") this.pos++;
      else if (this.peek() !== close) throw new NotPython();
    }
  }

  value(): unknown {
    this.space();
    const ch = this.peek();
    if (ch === "[" || ch === "(" || ch === "{") {
      // Each bracket recurses: a model's text nested 10,000 deep must not overflow the stack.
      if (++this.depth > MAX_JSON_DEPTH) throw new NotPython();
      const value = this.bracketed(ch);
      this.depth--;
      return value;
    }
    if (ch === '"' || ch === "'") return this.string();
    const rest = this.src.slice(this.pos);
    const number = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(rest);
    if (number) {
      this.pos += number[0].length;
      return Number(number[0]);
    }
    const word = /^[A-Za-z_]\w*/.exec(rest)?.[0];
    const constants: Record<string, unknown> = {
      True: true,
      False: false,
      None: null,
      true: true,
      false: false,
      null: null,
    };
    if (word !== undefined && Object.hasOwn(constants, word)) {
      this.pos += word.length;
      return constants[word];
    }
    throw new NotPython();
  }

  /** A list, tuple or dict starting at its opening bracket. */
  bracketed(open: string): unknown {
    this.pos++;
    if (open === "[") return this.items("]", () => this.value());
    if (open === "(") return this.items(")", () => this.value());
    const entries = this.items("}", () => {
      const key = this.value();
      this.expect(":");
      return [typeof key === "string" ? key : JSON.stringify(key), this.value()] as const;
    });
    return Object.fromEntries(entries);
  }

  string(): string {
    const quote = this.peek();
    const triple = this.src.startsWith(quote.repeat(3), this.pos);
    const close = triple ? quote.repeat(3) : quote;
    this.pos += close.length;
    let out = "";
    while (this.pos < this.src.length) {
      if (this.src.startsWith(close, this.pos)) {
        this.pos += close.length;
        return out;
      }
      const ch = this.src[this.pos]!;
      if (ch === "\n" && !triple) throw new NotPython();
      if (ch === "\\") {
        const next = this.src[this.pos + 1] ?? "";
        const escapes: Record<string, string> = {
          n: "\n",
          t: "\t",
          r: "\r",
          "0": "\0",
          "\\": "\\",
          "'": "'",
          '"': '"',
        };
        if (next === "u" && /^[0-9a-fA-F]{4}$/.test(this.src.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(parseInt(this.src.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
          continue;
        }
        out += escapes[next] ?? `\\${next}`;
        this.pos += 2;
        continue;
      }
      out += ch;
      this.pos++;
    }
    throw new NotPython();
  }

  call(): { name: string; args: Record<string, unknown> } {
    const name = this.identifier();
    this.expect("(");
    const entries = this.items(")", () => {
      const key = this.identifier();
      this.expect("=");
      return [key, this.value()] as const;
    });
    return { name, args: Object.fromEntries(entries) };
  }
}

/**
 * Parses a whole pythonic call list; the text must be nothing but the list.
 *
 * @returns The calls, or undefined when the text is not a call list.
 *
 * @example
 * ```ts
 * import { parsePythonCalls } from "./python_literal.ts";
 * const calls = parsePythonCalls('[get_weather(city="Tokyo", days=3)]');
 * if (calls?.[0]?.args.days !== 3) throw new Error();
 * ```
 */
export function parsePythonCalls(
  text: string,
): { name: string; args: Record<string, unknown> }[] | undefined {
  const reader = new PythonReader(text);
  try {
    reader.expect("[");
    const calls = reader.items("]", () => reader.call());
    reader.space();
    return calls.length > 0 && reader.pos === text.length ? calls : undefined;
  } catch (error) {
    if (error instanceof NotPython) return undefined;
    throw error;
  }
}

/**
 * Parses one Python literal (the whole text), or returns undefined.
 *
 * @example
 * ```ts
 * import { parsePythonLiteral } from "./python_literal.ts";
 * const v = parsePythonLiteral("{'a': [1, True, None]}");
 * if (JSON.stringify(v) !== '{"value":{"a":[1,true,null]}}') throw new Error();
 * ```
 */
export function parsePythonLiteral(text: string): { value: unknown } | undefined {
  const reader = new PythonReader(text);
  try {
    const value = reader.value();
    reader.space();
    return reader.pos === text.length ? { value } : undefined;
  } catch (error) {
    if (error instanceof NotPython) return undefined;
    throw error;
  }
}
