// The code-graph tools the model sees: `code_map`, `find_definition` and `find_references`, and
// `search_code` when an embedding model is configured or found (semantic_search.ts).
// They run in the host (they read only the graph database), while the files themselves are
// read by the indexing worker under the user's read grant; answers are filtered by that
// grant again, so a path indexed under wider flags never shows. The index is built on first
// use, refreshed for changed files on every call, and after file tools read or write a code
// file, on indexing workers kept for the session (one update per file, shared by the
// curator's outline and the refresh after the call). A source of the tool set
// (src/tools/tool_set.ts): its entries run in the host.

import { join, relative } from "../platform/paths.ts";
import { makeToolResult } from "../messages.ts";
import { effectivePermissions } from "../sandbox/grants/effective_permissions.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { covers } from "../sandbox/grants/permission_value.ts";
import type { ToolEntry, ToolInfo, ToolRun, ToolSource } from "../tools/tool_entry.ts";
import { formatAgentError, type Result } from "../errors.ts";
import type { GraphStore, StoredDefinition } from "./graph_store.ts";
import type { PathFilter } from "./code_queries.ts";
import { conversationFocus } from "./conversation_focus.ts";
import type { RankFocus } from "./rank_definitions.ts";
import { IndexUpdates } from "./index_updates.ts";
import type { Embedder } from "../providers/embeddings/embedder.ts";
import type { SemanticSearch } from "./semantic_search.ts";
import { DEFAULT_SEARCH_LIMIT, formatSearchAnswer, SEARCH_CODE_INFO } from "./search_code_tool.ts";
import { type Args, CODE_TOOL_INFOS, validateArgs } from "./code_tool_schemas.ts";
import { FILE_TOOLS, isTool } from "../tools/builtin_tools.ts";

/** Options of {@linkcode CodeTools}. */
export interface CodeToolsOptions {
  workspace: string;
  grants: Grants;
  /** harness's data folder; the graph lives in `code_index/` under it. */
  dataDir: string;
  /** The model's context window in tokens, when known (the map's default budget is a tenth). */
  contextWindow?: () => number | undefined;
  /** Recent conversation text, to personalise the ranking. */
  recentText?: () => string;
  /**
   * The embedding model for `search_code`, found once by {@linkcode CodeTools.ready}; without
   * one (or when it resolves to none) the tool is not offered.
   */
  embedder?: () => Promise<Embedder | undefined>;
}

const MAX_MATCHES = 30;
const NONE: readonly ToolInfo[] = [];
const WITH_SEARCH: readonly ToolInfo[] = [...CODE_TOOL_INFOS, SEARCH_CODE_INFO];
const DEFAULT_MAP_TOKENS = 1024;

/** The code tools of one workspace. */
export class CodeTools implements ToolSource {
  #options: CodeToolsOptions;
  #store: GraphStore | undefined;
  #visible: PathFilter;
  #updates: IndexUpdates;
  /** search_code's state, once an embedding model is known. */
  #semantic: SemanticSearch | undefined;
  #semanticReady: Promise<void> | undefined;
  #entries: { from: readonly ToolInfo[]; entries: readonly ToolEntry[] } | undefined;
  readonly available: boolean;

  constructor(options: CodeToolsOptions) {
    this.#options = options;
    const { permissions, guard } = effectivePermissions(options.grants, { read: ["."] }, {
      workspace: options.workspace,
    });
    const read = permissions.read;
    const denied = guard.read ?? [];
    this.available = read !== false;
    this.#visible = (path) => {
      const abs = join(options.workspace, path);
      if (read === false) return false;
      if (read !== true && !read.some((entry) => covers("read", entry, abs))) return false;
      return !denied.some((entry) => covers("read", entry, abs));
    };
    this.#updates = new IndexUpdates({
      workspace: options.workspace,
      grants: options.grants,
      store: () => this.#openStore(),
    });
  }

  /**
   * Settles whether `search_code` is offered: asks for the embedding model once (a configured
   * one, or one found on the local server). Call before the first list().
   */
  ready(): Promise<void> {
    const find = this.#options.embedder;
    if (!find || !this.available) return Promise.resolve();
    this.#semanticReady ??= (async () => {
      const embedder = await find().catch(() => undefined);
      if (!embedder) return;
      const { SemanticSearch } = await import("./semantic_search.ts");
      this.#semantic = new SemanticSearch(embedder);
    })();
    return this.#semanticReady;
  }

  /** The tools, or none when the read grant does not cover the workspace. */
  list(): readonly ToolInfo[] {
    if (!this.available) return NONE;
    return this.#semantic ? WITH_SEARCH : CODE_TOOL_INFOS;
  }

  /** The tools as entries of the tool set (the same array while the list is the same). */
  entries(): readonly ToolEntry[] {
    const from = this.list();
    if (this.#entries?.from !== from) {
      this.#entries = { from, entries: from.map((info) => this.#entry(info)) };
    }
    return this.#entries.entries;
  }

  #entry(info: ToolInfo): ToolEntry {
    return {
      info,
      validate: (args) => Promise.resolve(validateArgs(info, args)),
      run: async (args, call) => ({
        ...await this.run(info.name, args, call),
        state: call.state,
      }),
    };
  }

  validate(name: string, args: unknown): Result<unknown, string[]> {
    const info = this.list().find((t) => t.name === name);
    if (!info) return { ok: false, error: [`unknown code tool "${name}"`] };
    return validateArgs(info, args);
  }

  async #openStore(): Promise<GraphStore> {
    if (this.#store) return this.#store;
    const { GraphStore, graphStorePath } = await import("./graph_store.ts");
    const path = await graphStorePath(this.#options.dataDir, this.#options.workspace);
    this.#store = GraphStore.open(path);
    return this.#store;
  }

  /**
   * Called after any tool ran: a file tool's file is re-indexed in the background once the
   * index exists (before that, the first code tool call indexes everything).
   */
  noteToolRun(tool: Pick<ToolInfo, "name" | "origin">, args: unknown): void {
    if (!this.#store || !isTool(tool, FILE_TOOLS)) return;
    const path = (args as Args | null)?.path;
    if (typeof path !== "string") return;
    const rel = relative(this.#options.workspace, join(this.#options.workspace, path))
      .replaceAll("\\", "/");
    if (rel.startsWith("..")) return;
    void this.#updates.file(rel).catch(() => {});
  }

  /**
   * The definitions of one file after re-indexing it, with the store (for the curator).
   *
   * @param path Workspace-relative path.
   */
  async outline(path: string): Promise<{ store: GraphStore; definitions: StoredDefinition[] }> {
    const rel = relative(this.#options.workspace, join(this.#options.workspace, path))
      .replaceAll("\\", "/");
    const store = await this.#openStore();
    if (rel.startsWith("..") || !this.#visible(rel)) return { store, definitions: [] };
    // Right after the read: the update the read started is as good as a new one.
    await this.#updates.file(rel, { joinRunning: true });
    return { store, definitions: store.definitionsIn(rel) };
  }

  /** Runs one validated call. Never throws for expected failures. */
  async run(name: string, args: unknown, options: { signal?: AbortSignal }): Promise<ToolRun> {
    const started = performance.now();
    const record = args as Args;
    try {
      const summary = await this.#updates.all(options.signal);
      const store = this.#store!;
      const indexed = summary.parsed > 0 ? ` (indexed ${summary.parsed} files)` : "";
      const queries = await import("./code_queries.ts");
      let output: string;
      let display: string;
      if (name === "search_code") {
        return await this.#searchCode(store, record, options.signal, started);
      } else if (name === "code_map") {
        const window = this.#options.contextWindow?.();
        const maxTokens = typeof record.max_tokens === "number"
          ? record.max_tokens
          : window
          ? Math.max(256, Math.floor(window / 10))
          : DEFAULT_MAP_TOKENS;
        const map = queries.buildCodeMap(store, {
          maxTokens,
          ...(typeof record.path === "string" ? { path: record.path } : {}),
          focus: this.#focus(store),
          visible: this.#visible,
        });
        output = map.text === ""
          ? "No definitions found: the workspace has no indexed source files there."
          : `${map.text}${
            map.omitted > 0 ? `\n(${map.omitted} more definitions left out for the budget)` : ""
          }`;
        display =
          `${map.definitions} definitions in ${map.files} files, ~${map.tokens} tokens${indexed}`;
      } else if (name === "find_definition") {
        const found = queries.findDefinitions(store, {
          name: String(record.name),
          ...(typeof record.kind === "string" ? { kind: record.kind } : {}),
          limit: MAX_MATCHES,
          visible: this.#visible,
        });
        const lines = found.matches.map((d) => `${d.path}:${d.line}: ${d.signature}`);
        const head = found.match === "none"
          ? `No definition of "${record.name}" found`
          : `${found.total} ${found.match === "exact" ? "" : `${found.match} `}match${
            found.total === 1 ? "" : "es"
          } for "${record.name}"${found.total > lines.length ? `, first ${lines.length}` : ""}`;
        output = [head, ...lines].join("\n");
        display = `${head}${indexed}`;
      } else {
        const found = queries.findReferences(store, {
          name: String(record.name),
          limit: MAX_MATCHES,
          visible: this.#visible,
        });
        const lines = found.matches.map((r) => `${r.path}:${r.line}: ${r.text}`);
        const head = found.total === 0
          ? `No references to "${record.name}" found`
          : `${found.total} reference${found.total === 1 ? "" : "s"} to "${record.name}"${
            found.total > lines.length ? `, first ${lines.length}` : ""
          }`;
        output = [head, ...lines].join("\n");
        display = `${head}${indexed}`;
      }
      return {
        result: makeToolResult({ data: output, executionTimeMs: performance.now() - started }),
        display,
        state: {},
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const cancelled = options.signal?.aborted === true;
      return {
        result: makeToolResult({
          errorType: cancelled ? "cancelled" : "io_error",
          errorMessage: cancelled ? "Cancelled" : message,
          executionTimeMs: performance.now() - started,
        }),
        state: {},
      };
    }
  }

  async #searchCode(
    store: GraphStore,
    record: Args,
    signal: AbortSignal | undefined,
    started: number,
  ): Promise<ToolRun> {
    const semantic = this.#semantic!;
    const query = String(record.query);
    const found = await semantic.search(store, {
      query,
      ...(typeof record.path === "string" ? { path: record.path } : {}),
      limit: typeof record.limit === "number" ? record.limit : DEFAULT_SEARCH_LIMIT,
      visible: this.#visible,
      generation: this.#updates.generation,
      ...(signal ? { signal } : {}),
    });
    const executionTimeMs = performance.now() - started;
    if (!found.ok) {
      const cancelled = signal?.aborted === true;
      return {
        result: makeToolResult({
          errorType: cancelled ? "cancelled" : "io_error",
          errorMessage: cancelled
            ? "Cancelled"
            : `${formatAgentError(found.error)}. Use grep_search or find_definition instead`,
          executionTimeMs,
        }),
        state: {},
      };
    }
    const { output, display } = formatSearchAnswer(
      query,
      found.value,
      semantic.embedder.endpoint.model,
    );
    return { result: makeToolResult({ data: output, executionTimeMs }), display, state: {} };
  }

  #focus(store: GraphStore): RankFocus {
    const text = this.#options.recentText?.() ?? "";
    if (text === "") return {};
    return conversationFocus(text, store.definedNames(), store.fingerprints().keys());
  }

  close(): void {
    this.#updates.close();
    this.#store?.close();
    this.#store = undefined;
  }
}
