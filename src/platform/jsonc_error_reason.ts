// Turns a jsonc-parser syntax error into words people can act on: the line and column, then a
// sentence ("expected a comma") instead of the parser's enum name ("CommaExpected"). Pure.
// Shared by the JSONC files harness reads: policy files (src/permissions/policy_text.ts) and
// config files (src/config/settings.ts), so both report syntax errors in the same words.

import { type ParseError, printParseErrorCode } from "jsonc-parser";

/** Sentences for jsonc-parser's error codes, keyed by the names printParseErrorCode gives. */
const SENTENCES: Record<string, string> = {
  InvalidSymbol: "unexpected text (field names and strings need double quotes)",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a field name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected a colon after the field name",
  CommaExpected: "expected a comma",
  CloseBraceExpected: "expected a closing brace }",
  CloseBracketExpected: "expected a closing bracket ]",
  EndOfFileExpected: "unexpected text after the end of the top-level value",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "a /* comment is not closed with */",
  UnexpectedEndOfString: "a string is not closed with a double quote",
  UnexpectedEndOfNumber: "a number ends too early",
  InvalidUnicode: "invalid \\u escape in a string",
  InvalidEscapeCharacter: "invalid escape character in a string",
  InvalidCharacter: "invalid character in a string",
};

/**
 * Line and column (both 1-based) of an offset in text, as `line L, column C`.
 *
 * @param text The whole text.
 * @param offset A UTF-16 offset into it.
 * @returns `line L, column C`.
 *
 * @example
 * ```ts
 * import { textPosition } from "./jsonc_error_reason.ts";
 * if (textPosition("{\n  x", 4) !== "line 2, column 3") throw new Error();
 * ```
 */
export function textPosition(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * Describes a jsonc-parser syntax error: `line 4, column 5: expected a comma`.
 *
 * @param text The text that was parsed (for the line and column).
 * @param error The first error jsonc-parser reported.
 * @returns The position and a sentence, without a trailing period.
 *
 * @example
 * ```ts
 * import { parseTree, type ParseError } from "jsonc-parser";
 * import { jsoncErrorReason } from "./jsonc_error_reason.ts";
 * const text = '{ "a": 1 "b": 2 }';
 * const errors: ParseError[] = [];
 * parseTree(text, errors);
 * if (jsoncErrorReason(text, errors[0]!) !== "line 1, column 10: expected a comma") {
 *   throw new Error(jsoncErrorReason(text, errors[0]!));
 * }
 * ```
 */
export function jsoncErrorReason(text: string, error: ParseError): string {
  const name = printParseErrorCode(error.error);
  const sentence = SENTENCES[name] ?? `syntax error (${name})`;
  return `${textPosition(text, error.offset)}: ${sentence}`;
}
