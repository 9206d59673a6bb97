// Reads the wasm files the code graph needs in the host, so the indexing worker needs no read
// grant beyond the workspace: tree-sitter's runtime from npm:web-tree-sitter, the grammars VS
// Code ships (npm:@vscode/tree-sitter-wasm), and C from npm:tree-sitter-wasms, which VS Code's
// set lacks. Deno resolves the packages to files in its npm cache, or to the copies embedded
// in a compiled binary.

import "@vscode/tree-sitter-wasm/package.json" with { type: "json" };
import "tree-sitter-wasms/package.json" with { type: "json" };
import type { GrammarId } from "./languages.ts";
import type { GrammarAssets } from "./symbol_parser.ts";

/** Every grammar harness ships. */
export const GRAMMARS: readonly GrammarId[] = [
  "typescript",
  "tsx",
  "javascript",
  "python",
  "go",
  "rust",
  "c",
  "cpp",
  "java",
  "ruby",
  "bash",
];

function grammarSpecifier(id: GrammarId): string {
  return id === "c"
    ? "tree-sitter-wasms/out/tree-sitter-c.wasm"
    : `@vscode/tree-sitter-wasm/wasm/tree-sitter-${id}.wasm`;
}

async function readAsset(specifier: string): Promise<Uint8Array> {
  return await Deno.readFile(new URL(import.meta.resolve(specifier)));
}

/**
 * Loads the runtime and the grammars (only `only` when given).
 *
 * @param only The grammars wanted; all of them when left out.
 * @param options runtime: false leaves tree-sitter's runtime out (its bytes come back empty).
 * @returns The bytes, ready to transfer to a worker.
 */
export async function loadGrammarAssets(
  only?: readonly GrammarId[],
  options: { runtime?: boolean } = {},
): Promise<GrammarAssets> {
  const wanted = only ?? GRAMMARS;
  const [runtime, ...grammars] = await Promise.all([
    options.runtime === false
      ? Promise.resolve(new Uint8Array())
      : readAsset("web-tree-sitter/tree-sitter.wasm"),
    ...wanted.map((id) => readAsset(grammarSpecifier(id))),
  ]);
  const assets: GrammarAssets = { runtime: runtime!, grammars: {} };
  wanted.forEach((id, i) => assets.grammars[id] = grammars[i]!);
  return assets;
}
