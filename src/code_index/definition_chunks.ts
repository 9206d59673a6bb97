// The chunks semantic search embeds: one per definition of the code graph, made by the indexing
// worker from the file text it already read under the user's read grant. A chunk is the file's
// path, the comment lines just above the definition, and the definition's first lines, so what
// it does and what it is called both count. Its SHA-256 keys its vector: an unchanged
// definition is never embedded twice, even after its file changed elsewhere.

import { sha256Hex } from "../platform/sha256_hex.ts";
import type { Definition } from "./symbol_parser.ts";

/** One definition's text for the embedding model. */
export interface DefinitionChunk {
  /** 1-based first and last line of the definition. */
  line: number;
  endLine: number;
  /** SHA-256 (hex) of `text`. */
  hash: string;
  text: string;
}

/** Characters of a chunk (about 300 tokens: the smallest embedding models take 512). */
export const MAX_CHUNK_CHARS = 1200;
/** Comment lines above a definition that are kept. */
const MAX_COMMENT_LINES = 8;
/** Lines that continue or open a comment in the supported languages. */
const COMMENT = /^\s*(\/\/|\/\*|\*|#|--|"""|''')/;

/**
 * The chunks of one file's definitions.
 *
 * @param path The workspace-relative path (part of each chunk's text).
 * @param text The file's text.
 * @param definitions Its definitions from the symbol parser.
 * @returns One chunk per definition, in the definitions' order.
 *
 * @example
 * ```ts
 * import { definitionChunks } from "./definition_chunks.ts";
 * const text = "// Adds two numbers.\nfunction add(a, b) {\n  return a + b;\n}\n";
 * const [chunk] = definitionChunks("math.js", text, [
 *   { name: "add", kind: "function", line: 2, endLine: 4, signature: "function add(a, b) {" },
 * ]);
 * if (!chunk?.text.startsWith("math.js\n// Adds two numbers.\nfunction add")) throw new Error();
 * ```
 */
export function definitionChunks(
  path: string,
  text: string,
  definitions: readonly Definition[],
): DefinitionChunk[] {
  if (definitions.length === 0) return [];
  const lines = text.split("\n");
  const chunks: DefinitionChunk[] = [];
  for (const d of definitions) {
    let start = d.line - 1;
    while (
      start > 0 && d.line - 1 - start < MAX_COMMENT_LINES && COMMENT.test(lines[start - 1] ?? "")
    ) start--;
    const body: string[] = [];
    let size = path.length + 1;
    for (let i = start; i < Math.min(d.endLine, lines.length) && size < MAX_CHUNK_CHARS; i++) {
      const line = lines[i]!.trimEnd();
      body.push(line);
      size += line.length + 1;
    }
    const chunk = `${path}\n${body.join("\n")}`.slice(0, MAX_CHUNK_CHARS);
    chunks.push({ line: d.line, endLine: d.endLine, hash: sha256Hex(chunk), text: chunk });
  }
  return chunks;
}
