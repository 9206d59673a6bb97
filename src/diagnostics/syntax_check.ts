// The syntax check after every edit: the file's new text parsed with tree-sitter (the
// grammars harness ships for the code graph, src/code_index/), and every ERROR and MISSING
// node turned into a diagnostic. It runs on the host thread, in memory, on the text the edit
// wrote; the runtime and each grammar load once, on first use.

import type { Edit, Language, Node, Parser, Tree } from "web-tree-sitter";
import { loadGrammarAssets } from "../code_index/grammar_assets.ts";
import { grammarFor, type GrammarId } from "../code_index/languages.ts";
import { type Diagnostic, newDiagnostics } from "./diagnostic.ts";

/** Diagnostics one check reports at most (the first ones, in the file's order). */
const MAX_FOUND = 50;
/** Characters of source an "unexpected" message quotes. */
const QUOTED = 30;

/** tree-sitter's classes, imported with the runtime: a run without an edit never loads them. */
type TreeSitter = { Parser: typeof Parser; Language: typeof Language };
let runtime: Promise<TreeSitter> | undefined;
const parsers = new Map<GrammarId, Promise<Parser>>();

/** tree-sitter's runtime, started once on this thread. */
function startRuntime(): Promise<TreeSitter> {
  runtime ??= Promise.all([import("web-tree-sitter"), loadGrammarAssets([], {})]).then(
    async ([treeSitter, assets]) => {
      const init = { wasmBinary: assets.runtime } as Parameters<typeof Parser.init>[0];
      await treeSitter.Parser.init(init);
      return treeSitter;
    },
  );
  return runtime;
}

/** The parser of a grammar, made once. */
function parserFor(grammar: GrammarId): Promise<Parser> {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = startRuntime().then(async ({ Parser, Language }) => {
      const assets = await loadGrammarAssets([grammar], { runtime: false });
      const language = await Language.load(assets.grammars[grammar]!);
      const made = new Parser();
      made.setLanguage(language);
      return made;
    });
    parsers.set(grammar, parser);
    // A grammar that failed to load is tried again next time.
    parser.catch(() => parsers.delete(grammar));
  }
  return parser;
}

/** Whether the syntax check knows the language of `path` (by its extension). */
export function checksSyntaxOf(path: string): boolean {
  return grammarFor(path) !== undefined;
}

/** The words for one ERROR or MISSING node. */
function messageOf(node: Node): string {
  if (node.isMissing) return `missing "${node.type}"`;
  const text = node.text.replace(/\s+/g, " ").trim();
  if (text === "") return "syntax error";
  const quoted = text.length > QUOTED ? `${text.slice(0, QUOTED)}...` : text;
  return `syntax error: unexpected "${quoted}"`;
}

/** A parsed text kept for the next edit of the same file (an incremental parse). */
interface Parsed {
  text: string;
  tree: Tree;
  grammar: GrammarId;
  errors: Diagnostic[];
}

/** Files whose last tree is kept. */
const KEPT_TREES = 16;

/**
 * The edit that turns `before` into `after`: what lies between their common start and their
 * common end, in string indices and rows and columns (tree-sitter's Edit).
 */
export function textEdit(before: string, after: string): Edit {
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  // Never inside a surrogate pair: the edit starts and ends on whole characters.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  let end = 0;
  while (
    end < shorter - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  ) end++;
  if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end--;
  return {
    startIndex: start,
    oldEndIndex: before.length - end,
    newEndIndex: after.length - end,
    startPosition: pointAt(before, start),
    oldEndPosition: pointAt(before, before.length - end),
    newEndPosition: pointAt(after, after.length - end),
  };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Row and column (string units) of index `at` of `text`. */
function pointAt(text: string, at: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: at - lineStart };
}

/**
 * The syntax check of the files an agent edits: each file's last tree is kept (16 files), so
 * the check after an edit of a file it saw last reparses only what changed (a text that turns
 * out to have errors is parsed afresh).
 */
export class SyntaxChecker {
  readonly #kept = new Map<string, Parsed>();

  /**
   * The syntax errors tree-sitter finds in `text`, read as the language of `path`; none for a
   * language harness has no grammar for.
   *
   * @param path The file (its extension picks the grammar; the key of its kept tree).
   * @param text Its text.
   * @returns Errors in the file's order, at most 50.
   *
   * @example
   * ```ts
   * import { SyntaxChecker } from "./syntax_check.ts";
   * const errors = await new SyntaxChecker().errors("a.py", "def f(:\n    pass\n");
   * if (errors.length === 0 || errors[0]!.line !== 1) throw new Error(JSON.stringify(errors));
   * ```
   */
  async errors(path: string, text: string): Promise<Diagnostic[]> {
    const grammar = grammarFor(path);
    if (grammar === undefined) return [];
    const parser = await parserFor(grammar);
    const kept = this.#kept.get(path);
    let old: Tree | undefined;
    if (kept && kept.grammar === grammar) {
      // Any old text edited into the new one describes the change truly: reparse from it.
      old = kept.tree.copy();
      old.edit(textEdit(kept.text, text));
    }
    let tree = parser.parse(text, old ?? null);
    old?.delete();
    // A reparse from the kept tree may recover from errors otherwise than a parse from
    // scratch: a text with errors is parsed afresh, so what is said does not depend on the
    // file's history (and an error it had before is recognised after).
    if (tree && old && tree.rootNode.hasError) {
      tree.delete();
      tree = parser.parse(text);
    }
    if (!tree) return [];
    const found: Diagnostic[] = [];
    if (tree.rootNode.hasError) collect(tree.rootNode, found);
    this.#keep(path, { text, tree, grammar, errors: found });
    return found;
  }

  /**
   * The syntax errors an edit of `path` from `before` to `after` introduced. The text before
   * is parsed only when the text after has errors and its tree was not kept.
   *
   * @returns The new errors (see newDiagnostics).
   */
  async newErrors(path: string, before: string | null, after: string): Promise<Diagnostic[]> {
    const kept = this.#kept.get(path);
    const known = kept !== undefined && kept.text === before ? kept.errors : undefined;
    const errors = await this.errors(path, after);
    if (errors.length === 0) return [];
    let old: Diagnostic[] = known ?? [];
    if (known === undefined && before !== null) {
      const checker = new SyntaxChecker();
      try {
        old = await checker.errors(path, before);
      } finally {
        checker.close();
      }
    }
    return newDiagnostics({ text: before ?? "", diagnostics: old }, {
      text: after,
      diagnostics: errors,
    });
  }

  #keep(path: string, parsed: Parsed): void {
    this.#kept.get(path)?.tree.delete();
    this.#kept.delete(path);
    this.#kept.set(path, parsed);
    for (const [oldest, entry] of this.#kept) {
      if (this.#kept.size <= KEPT_TREES) break;
      entry.tree.delete();
      this.#kept.delete(oldest);
    }
  }

  /** Frees every kept tree. */
  close(): void {
    for (const entry of this.#kept.values()) entry.tree.delete();
    this.#kept.clear();
  }
}

/** Adds the ERROR and MISSING nodes under `node`, going only into subtrees that hold one. */
function collect(node: Node, found: Diagnostic[]): void {
  for (const child of node.children) {
    if (found.length >= MAX_FOUND) return;
    if (!child) continue;
    if (child.isError || child.isMissing) {
      found.push({
        line: child.startPosition.row + 1,
        column: child.startPosition.column + 1,
        severity: "error",
        message: messageOf(child),
        source: "syntax",
      });
      // An ERROR node's own children are what it could not place: one report is enough,
      // unless a MISSING node inside says more.
      if (child.isError) collectMissing(child, found);
    } else if (child.hasError) {
      collect(child, found);
    }
  }
}

function collectMissing(node: Node, found: Diagnostic[]): void {
  for (const child of node.children) {
    if (!child || found.length >= MAX_FOUND) continue;
    if (child.isMissing) {
      found.push({
        line: child.startPosition.row + 1,
        column: child.startPosition.column + 1,
        severity: "error",
        message: messageOf(child),
        source: "syntax",
      });
    } else if (child.hasError) collectMissing(child, found);
  }
}
