// Terminal styling that respects NO_COLOR and non-TTY output: every helper returns plain
// text when colour is off.

export interface Style {
  color: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** The REPL's input prompt (shown in cyan). */
export const REPL_PROMPT = "> ";

/**
 * Builds a style; colour is on only when asked for.
 *
 * @example
 * ```ts
 * import { createStyle } from "./style.ts";
 * if (createStyle(false).red("x") !== "x") throw new Error();
 * ```
 */
export function createStyle(color: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    color ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    color,
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** Whether to colour output written to a stream that is (or is not) a terminal. */
export function wantsColor(
  isTerminal: boolean,
  env: (name: string) => string | undefined,
): boolean {
  const noColor = env("NO_COLOR");
  return isTerminal && (noColor === undefined || noColor === "") && env("TERM") !== "dumb";
}
