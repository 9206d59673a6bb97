// The indexing worker: walks the workspace (honouring .gitignore like the search tools),
// skips files whose size and mtime (or content hash) are unchanged, parses the rest with
// tree-sitter and posts their symbols to the host, which writes the graph store. It runs with
// the user's read grant only (no write, net or run), like a read-only tool. It lives for the
// session: `init` loads tree-sitter once, then `index` requests are served one at a time.

/// <reference lib="deno.worker" />

import { installDenyGuard } from "../sandbox/workers/deny_guard.ts";
import type { PermissionName } from "../sandbox/grants/permission_name.ts";
import { walkTree } from "../tools/search/walk_tree.ts";
import { grammarFor } from "./languages.ts";
import { type GrammarAssets, SymbolParser } from "./symbol_parser.ts";
import type { FileFingerprint } from "./graph_store.ts";
import type { FileSymbols } from "./symbol_parser.ts";
import { type DefinitionChunk, definitionChunks } from "./definition_chunks.ts";
import { settledBy, UNSETTLED } from "../platform/racy_stamp.ts";

/** The host's first message: what every request of this worker shares (grammars come later). */
export interface IndexInit {
  type: "init";
  workspace: string;
  /** Where the walk starts, workspace-relative ("" the whole workspace): src/tools/search/read_roots.ts. */
  roots: string[];
  assets: GrammarAssets;
  guard: Partial<Record<PermissionName, string[]>>;
}

/** One indexing run; its replies carry its `id`. */
export interface IndexRequest {
  type: "index";
  id: number;
  /** Grammars this worker has not had yet that the run may need. */
  grammars?: GrammarAssets["grammars"];
  /** What the store knows: path -> [size, mtimeMs, hash]. */
  known: Record<string, [number, number, string]>;
  /** Only these workspace-relative paths (a tool read or wrote them); the whole tree when absent. */
  only?: string[];
  maxFileBytes: number;
  /** This worker takes every `count`-th candidate from `index` on (all workers walk alike). */
  shard: { index: number; count: number };
}

/** What the worker posts back, tagged with the request's id (0 for a failed `init`). */
export type IndexReply =
  & { id: number }
  & (
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
    | { type: "failed"; message: string }
  );

/** What `init` made, for every request. */
interface Ready {
  workspace: string;
  roots: readonly string[];
  parser: SymbolParser;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

function listCandidates(
  request: IndexRequest,
  ready: Ready,
): { paths: string[]; partial: boolean } {
  if (request.only) {
    return { paths: request.only.filter((p) => grammarFor(p) !== undefined), partial: true };
  }
  const paths: string[] = [];
  for (const root of ready.roots) {
    if (root !== "" && !isFolder(`${ready.workspace}/${root}`)) {
      if (grammarFor(root) !== undefined) paths.push(root); // a granted file
      continue;
    }
    // Folders a --deny-read covers are skipped by the walk itself (the guard refuses them).
    walkTree(ready.workspace, root, {
      includeHidden: false,
      respectGitignore: true,
      enterDir: (dir) => !/(^|\/)node_modules\/$/.test(dir),
      visit: (entry) => {
        if (entry.kind === "file" && grammarFor(entry.path) !== undefined) paths.push(entry.path);
      },
    });
  }
  return { paths, partial: false };
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

async function run(request: IndexRequest, ready: Ready): Promise<void> {
  const { workspace, parser } = ready;
  const id = request.id;
  const listed = listCandidates(request, ready);
  const { index, count } = request.shard;
  const paths = listed.paths.filter((_, i) => i % count === index);
  const partial = listed.partial;
  self.postMessage({ id, type: "planned", total: paths.length } satisfies IndexReply);
  const seen: string[] = [];
  const failures: string[] = [];
  let skipped = 0;
  let done = 0;
  let lastProgress = 0;
  for (const path of paths) {
    done++;
    if (Date.now() - lastProgress > 100) {
      lastProgress = Date.now();
      self.postMessage({ id, type: "progress", done, total: paths.length } satisfies IndexReply);
    }
    const absPath = `${workspace}/${path}`;
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
    // A time this recent may be kept by a write after this read (racy_stamp.ts): the store
    // keeps no time then, so the next run compares content.
    const stampedMs = settledBy(mtimeMs, Date.now()) ? mtimeMs : UNSETTLED;
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
    const file = { path, size: info.size, mtimeMs: stampedMs, hash };
    if (known && known[2] === hash) {
      self.postMessage({ id, type: "touched", file } satisfies IndexReply);
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
    self.postMessage({ id, type: "file", file, grammar, symbols, chunks } satisfies IndexReply);
  }
  self.postMessage({ id, type: "done", seen, skipped, partial, failures } satisfies IndexReply);
}

let ready: Promise<Ready> | undefined;
let queue: Promise<void> = Promise.resolve();

function fail(id: number, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  self.postMessage({ id, type: "failed", message } satisfies IndexReply);
}

self.onmessage = (event: MessageEvent<IndexInit | IndexRequest>) => {
  const message = event.data;
  if (message.type === "init") {
    // Once per worker: the deny guard and tree-sitter's runtime; grammars load on first use.
    ready = (async () => {
      installDenyGuard(message.guard, message.workspace);
      const parser = await SymbolParser.create(message.assets);
      return { workspace: message.workspace, roots: message.roots, parser };
    })();
    ready.catch((error) => fail(0, error));
    return;
  }
  const started = ready;
  queue = queue.then(async () => {
    if (!started) throw new Error("the indexing worker got a request before init");
    const ready = await started;
    if (message.grammars) ready.parser.addGrammars(message.grammars);
    await run(message, ready);
  }).catch((error) => fail(message.id, error));
};
