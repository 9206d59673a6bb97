// Turns one source file into definitions and references with tree-sitter (web-tree-sitter and
// the prebuilt grammars of npm:tree-sitter-wasms). The wasm bytes are handed in, so the
// parser runs in a worker that may read nothing but the workspace. Grammars and queries are
// compiled on first use and kept for the life of the parser.

import { Language, Parser, Query } from "web-tree-sitter";
import { type GrammarId, TAGS_QUERIES } from "./languages.ts";

/** A named definition: a function, class, method, type... */
export interface Definition {
  name: string;
  /** "function", "class", "method", "interface", "type", "enum", "module", "constant", ... */
  kind: string;
  /** 1-based first line of the definition. */
  line: number;
  /** 1-based last line. */
  endLine: number;
  /** The definition's first line, trimmed and cut to 200 characters. */
  signature: string;
}

/** A use of a name: a call, a type, a constructed class. */
export interface Reference {
  name: string;
  /** 1-based line. */
  line: number;
  /** The line's text, trimmed and cut to 200 characters. */
  text: string;
}

/** What the parser found in one file. */
export interface FileSymbols {
  definitions: Definition[];
  references: Reference[];
}

/** The wasm files the parser needs: tree-sitter's runtime and the grammars by id. */
export interface GrammarAssets {
  runtime: Uint8Array;
  grammars: Partial<Record<GrammarId, Uint8Array>>;
}

const MAX_SIGNATURE = 200;
const MAX_NAME = 200;

interface Compiled {
  parser: Parser;
  query: Query;
}

/** Parses sources of the grammars it was given; one instance per worker. */
export class SymbolParser {
  #assets: GrammarAssets;
  #compiled = new Map<GrammarId, Compiled>();

  private constructor(assets: GrammarAssets) {
    this.#assets = assets;
  }

  /**
   * Initialises tree-sitter's runtime from the given bytes.
   *
   * @param assets The runtime and grammar wasm bytes (see grammar_assets.ts).
   * @returns A parser ready for {@linkcode SymbolParser.parse}.
   */
  static async create(assets: GrammarAssets): Promise<SymbolParser> {
    await Parser.init({ wasmBinary: assets.runtime } as Parameters<typeof Parser.init>[0]);
    return new SymbolParser(assets);
  }

  /** Adds grammar bytes (a worker gets each grammar when a file first needs it). */
  addGrammars(grammars: GrammarAssets["grammars"]): void {
    Object.assign(this.#assets.grammars, grammars);
  }

  /** Drops a grammar's parser and query (after a failure), so the next use starts afresh. */
  forget(grammar: GrammarId): void {
    const compiled = this.#compiled.get(grammar);
    this.#compiled.delete(grammar);
    try {
      compiled?.query.delete();
      compiled?.parser.delete();
    } catch { /* already broken */ }
  }

  async #compile(grammar: GrammarId): Promise<Compiled> {
    const known = this.#compiled.get(grammar);
    if (known) return known;
    const bytes = this.#assets.grammars[grammar];
    if (!bytes) throw new Error(`No grammar wasm for "${grammar}"`);
    const language = await Language.load(bytes);
    const parser = new Parser();
    parser.setLanguage(language);
    const compiled = { parser, query: new Query(language, TAGS_QUERIES[grammar]) };
    this.#compiled.set(grammar, compiled);
    return compiled;
  }

  /**
   * Finds the definitions and references of `source`.
   *
   * @param grammar The grammar that parses it (languages.ts `grammarFor`).
   * @param source The file's text.
   * @returns Definitions in source order and references, without the names of the
   *   definitions themselves.
   */
  async parse(grammar: GrammarId, source: string): Promise<FileSymbols> {
    const { parser, query } = await this.#compile(grammar);
    const tree = parser.parse(source);
    if (!tree) return { definitions: [], references: [] };
    try {
      const lines = source.split("\n");
      const definitions: Definition[] = [];
      const references: Reference[] = [];
      const definitionNames = new Set<number>();
      const seenReferences = new Set<string>();
      for (const match of query.matches(tree.rootNode)) {
        const nameCapture = match.captures.find((c) => c.name === "name");
        const role = match.captures.find((c) => c.name !== "name");
        if (!nameCapture || !role) continue;
        const name = nameCapture.node.text;
        if (name.length === 0 || name.length > MAX_NAME || /\s/.test(name)) continue;
        const [group, kind = "unknown"] = role.name.split(".");
        if (group === "definition") {
          if (definitionNames.has(nameCapture.node.id)) continue;
          definitionNames.add(nameCapture.node.id);
          const line = role.node.startPosition.row + 1;
          definitions.push({
            name,
            kind: refineKind(kind, role.node),
            line,
            endLine: lastLine(role.node),
            signature: (lines[line - 1] ?? "").trim().slice(0, MAX_SIGNATURE),
          });
        } else if (group === "reference") {
          const line = nameCapture.node.startPosition.row + 1;
          const key = `${nameCapture.node.id}`;
          if (seenReferences.has(key)) continue;
          seenReferences.add(key);
          references.push({
            name,
            line,
            text: (lines[line - 1] ?? "").trim().slice(0, MAX_SIGNATURE),
          });
        }
      }
      // A definition's own name matched by a reference pattern (a type name) is no reference.
      const kept = references.filter((r) =>
        !definitions.some((d) => d.name === r.name && d.line === r.line)
      );
      definitions.sort((a, b) => a.line - b.line);
      return { definitions, references: dedupeReferences(kept) };
    } finally {
      tree.delete();
    }
  }
}

/** The 1-based last line of a node; a node ending at column 0 ends on the line before. */
function lastLine(
  node: { startPosition: { row: number }; endPosition: { row: number; column: number } },
): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

interface NodeLike {
  parent: NodeLike | null;
  type: string;
}

/** A function inside a class body, impl block or similar is a method. */
function refineKind(kind: string, node: NodeLike): string {
  if (kind !== "function") return kind;
  for (let up = node.parent; up; up = up.parent) {
    if (
      /^(impl_item|class_body|class_definition|class_specifier|declaration_list)$/.test(up.type)
    ) {
      return up.type === "declaration_list" ? kindOfDeclarationList(up) : "method";
    }
    if (/function|method|lambda|arrow/.test(up.type)) return kind;
  }
  return kind;
}

function kindOfDeclarationList(node: NodeLike): string {
  return node.parent?.type === "impl_item" || node.parent?.type === "trait_item"
    ? "method"
    : "function";
}

/** One reference per name and line is enough for ranking and for listing. */
function dedupeReferences(references: Reference[]): Reference[] {
  const seen = new Set<string>();
  return references.filter((r) => {
    const key = `${r.name}\0${r.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
