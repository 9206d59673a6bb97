// The indexing worker: walks the workspace (honouring .gitignore like the search tools),
// skips files whose size and mtime (or content hash) are unchanged, parses the rest with
// tree-sitter and posts their symbols to the host, which writes the graph store. It runs with
// the user's read grant only (no write, net or run), like a read-only tool.

/// <reference lib="deno.worker" />

import { installDenyGuard } from "../sandbox/deny_guard.ts";
import type { PermissionName } from "../sandbox/permission_name.ts";
import { walkTree } from "../tools/search/walk_tree.ts";
import { grammarFor } from "./languages.ts";
import { type GrammarAssets, SymbolParser } from "./symbol_parser.ts";
import type { FileFingerprint } from "./graph_store.ts";
import type { FileSymbols } from "./symbol_parser.ts";
import { type DefinitionChunk, definitionChunks } from "./definition_chunks.ts";

/** The host's request. */
export interface IndexRequest {
  type: "index";
  workspace: string;
  /** What the store knows: path -> [size, mtimeMs, hash]. */
  known: Record<string, [number, number, string]>;
  assets: GrammarAssets;
  guard: Partial<Record<PermissionName, string[]>>;
  /** Only these workspace-relative paths (a tool read or wrote them); the whole tree when absent. */
  only?: string[];
  maxFileBytes: number;
  /** This worker takes every `count`-th candidate from `index` on (all workers walk alike). */
  shard: { index: number; count: number };
}

/** What the worker posts back. */
export type IndexReply =
  | { type: "planned"; total: number }
  | {
    type: "file";
    file: FileFingerprint;
    grammar: string;
    symbols: FileSymbols;
    /** The definitions' text for semantic search, read here under the read grant. */
    chunks: DefinitionChunk[];
  }
  | { type: "touched"; file: FileFingerprint }
  | { type: "progress"; done: number; total: number }
  | { type: "done"; seen: string[]; skipped: number; partial: boolean; failures: string[] }
  | { type: "failed"; message: string };

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

function listCandidates(request: IndexRequest): { paths: string[]; partial: boolean } {
  if (request.only) {
    return { paths: request.only.filter((p) => grammarFor(p) !== undefined), partial: true };
  }
  const paths: string[] = [];
  // Folders a --deny-read covers are skipped by the walk itself (the guard refuses them).
  walkTree(request.workspace, "", {
    includeHidden: false,
    respectGitignore: true,
    enterDir: (dir) => !/(^|\/)node_modules\/$/.test(dir),
    visit: (entry) => {
      if (entry.kind === "file" && grammarFor(entry.path) !== undefined) paths.push(entry.path);
    },
  });
  return { paths, partial: false };
}

async function run(request: IndexRequest): Promise<void> {
  installDenyGuard(request.guard, request.workspace);
  const parser = await SymbolParser.create(request.assets);
  const listed = listCandidates(request);
  const { index, count } = request.shard;
  const paths = listed.paths.filter((_, i) => i % count === index);
  const partial = listed.partial;
  self.postMessage({ type: "planned", total: paths.length } satisfies IndexReply);
  const seen: string[] = [];
  const failures: string[] = [];
  let skipped = 0;
  let done = 0;
  let lastProgress = 0;
  for (const path of paths) {
    done++;
    if (Date.now() - lastProgress > 100) {
      lastProgress = Date.now();
      self.postMessage({ type: "progress", done, total: paths.length } satisfies IndexReply);
    }
    const absPath = `${request.workspace}/${path}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(absPath);
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) skipped++;
      continue;
    }
    if (!info.isFile) continue;
    seen.push(path);
    const mtimeMs = Math.trunc(info.mtime?.getTime() ?? 0);
    const known = request.known[path];
    if (known && known[0] === info.size && known[1] === mtimeMs) continue;
    if (info.size > request.maxFileBytes) {
      skipped++;
      seen.pop();
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = Deno.readFileSync(absPath);
    } catch {
      skipped++;
      seen.pop();
      continue;
    }
    if (looksBinary(bytes)) {
      seen.pop();
      continue;
    }
    const hash = await sha256Hex(bytes);
    const file = { path, size: info.size, mtimeMs, hash };
    if (known && known[2] === hash) {
      self.postMessage({ type: "touched", file } satisfies IndexReply);
      continue;
    }
    const grammar = grammarFor(path)!;
    let symbols: FileSymbols;
    const text = new TextDecoder().decode(bytes);
    try {
      symbols = await parser.parse(grammar, text);
    } catch (error) {
      // A grammar's scanner can trap on odd input; the file is indexed as empty so it is
      // not parsed again until it changes, and the parser drops that grammar's state.
      parser.forget(grammar);
      failures.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      symbols = { definitions: [], references: [] };
    }
    const chunks = definitionChunks(path, text, symbols.definitions);
    self.postMessage({ type: "file", file, grammar, symbols, chunks } satisfies IndexReply);
  }
  self.postMessage({ type: "done", seen, skipped, partial, failures } satisfies IndexReply);
}

self.onmessage = (event: MessageEvent<IndexRequest>) => {
  run(event.data).catch((error) => {
    const message = error instanceof Error ? error.message : String(error);
    self.postMessage({ type: "failed", message } satisfies IndexReply);
  });
};
