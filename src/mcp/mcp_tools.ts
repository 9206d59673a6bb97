// The tools of the configured MCP servers as a source of the tool set (src/tools/tool_set.ts),
// so the loop, the approver and the session log see them like any other tool: named
// `SERVER__tool`, with a risk from the tool's annotations, arguments checked against its JSON
// Schema, and results capped and spilled exactly as built-in tools' are (truncate_output.ts).

import { err, ok, type Result } from "../errors.ts";
import { makeToolResult, type ToolErrorType } from "../messages.ts";
import type { RiskLevel } from "../tools/define_tool.ts";
import type { EntryCall, ToolEntry, ToolInfo, ToolRun, ToolSource } from "../tools/tool_entry.ts";
import {
  savedOutputFile,
  type ToolCut,
  truncateToolResult,
} from "../sandbox/workers/truncate_output.ts";
import { SAVED_ANSWER_META } from "./message_reader.ts";
import { type McpCallResult, mcpMediaBlocks, mcpResultText, printable } from "./mcp_result.ts";
import { ensurePrivateDir, toolOutputsDir } from "../config/folders.ts";
import type { McpServers } from "./mcp_servers.ts";
import type { McpToolListing } from "./mcp_server.ts";
import { mcpToolName } from "./tool_names.ts";

/** Longest tool description sent to the model, in characters (local models have small contexts). */
const MAX_DESCRIPTION = 1024;

/**
 * The risk of an MCP tool from its annotations: read-only tools are safe, destructive ones
 * high, the rest medium. A policy rule can still say otherwise.
 *
 * @example
 * ```ts
 * import { riskFromAnnotations } from "./mcp_tools.ts";
 * if (riskFromAnnotations({ readOnlyHint: true }) !== "safe") throw new Error();
 * if (riskFromAnnotations({ destructiveHint: true }) !== "high") throw new Error();
 * if (riskFromAnnotations(undefined) !== "medium") throw new Error();
 * ```
 */
export function riskFromAnnotations(
  annotations: McpToolListing["annotations"],
): RiskLevel {
  if (annotations?.readOnlyHint === true) return "safe";
  if (annotations?.destructiveHint === true) return "high";
  return "medium";
}

interface McpToolRef {
  info: ToolInfo;
  server: string;
  tool: string;
}

/** Options of {@linkcode McpTools}. */
export interface McpToolsOptions {
  /** Where cut outputs are saved (the host's data folder). */
  dataDir?: string;
  maxOutputSize?: number;
  toolOutputLimit?: number;
  /** `tool_timeouts` from the settings: a tool's entry wins over its server's `timeout_ms`. */
  timeouts?: Record<string, number>;
  /** How long `ready()` waits for servers still starting (ms, default 10000). */
  readyWaitMs?: number;
  /** Shows a progress notification on the running tool's line. */
  progress?(name: string, text: string | null): void;
  /**
   * Runs after each call: a stdio server is a process that may have moved a denied or
   * protected entry, which the run's file gate checks for and the result then says
   * (sandbox/workers/moved_entries.ts).
   */
  afterCall?(run: ToolRun): ToolRun;
}

/** The MCP servers' tools, as entries of the tool set. */
export class McpTools implements ToolSource {
  #listKey = "";
  #entries: readonly ToolEntry[] = [];
  #waiting: Promise<void> | undefined;

  constructor(
    readonly servers: McpServers,
    readonly options: McpToolsOptions = {},
  ) {}

  /**
   * Waits for servers still starting (for at most `readyWaitMs`, once: a server slower than
   * that joins a later turn without making each turn wait).
   */
  async ready(): Promise<void> {
    this.#waiting ??= this.servers.settled(this.options.readyWaitMs ?? 10_000);
    await this.#waiting;
  }

  /** The servers' tools, rebuilt when a server's tool list (or a name before them) changed. */
  entries(taken: ReadonlySet<string>): readonly ToolEntry[] {
    const states = this.servers.states();
    const key = states.map((s) => `${s.name}:${s.tools.map((t) => t.name).join(",")}`).join(";") +
      `|${[...taken].join(",")}`;
    if (key === this.#listKey) return this.#entries;
    const names = new Set(taken);
    const entries: ToolEntry[] = [];
    for (const state of states) {
      for (const tool of state.tools) {
        const name = mcpToolName(state.name, tool.name, names);
        names.add(name);
        entries.push(
          this.#entry({
            server: state.name,
            tool: tool.name,
            info: this.#info(name, state.name, tool),
          }),
        );
      }
    }
    this.#entries = entries;
    this.#listKey = key;
    return entries;
  }

  #info(name: string, server: string, tool: McpToolListing): ToolInfo {
    const description = printable(
      tool.description ?? tool.annotations?.title ?? tool.title ?? tool.name,
    );
    return {
      name,
      description: description.length > MAX_DESCRIPTION
        ? `${description.slice(0, MAX_DESCRIPTION - 3)}...`
        : description,
      risk: riskFromAnnotations(tool.annotations),
      parameters: tool.inputSchema ?? { type: "object" },
      source: `mcp:${server}`,
      origin: "mcp",
      server,
      timeoutMs: this.options.timeouts?.[name] ?? this.servers.timeoutMs(server),
    };
  }

  /** An entry: arguments checked against the tool's JSON Schema (once loaded), no preview. */
  #entry(ref: McpToolRef): ToolEntry {
    let check: Promise<(args: unknown) => Result<unknown, string[]>> | undefined;
    return {
      info: ref.info,
      validate: async (args) => {
        if (typeof args !== "object" || args === null || Array.isArray(args)) {
          return err(["expected an object of arguments"]);
        }
        check ??= schemaCheck(ref.info.parameters);
        return (await check)(args);
      },
      run: (args, call) => this.#run(ref, args, call),
    };
  }

  async #run(ref: McpToolRef, args: unknown, options: EntryCall): Promise<ToolRun> {
    const name = ref.info.name;
    const started = performance.now();
    const progress = this.options.progress;
    const called = await this.servers.call(
      ref,
      (args ?? {}) as Record<string, unknown>,
      {
        ...(ref.info.timeoutMs ? { timeoutMs: ref.info.timeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(progress
          ? {
            onProgress: (p) => {
              const of = p.total ? `${p.progress}/${p.total}` : `${p.progress}`;
              progress(name, `${name} ${of}${p.message ? ` ${p.message}` : ""}`);
            },
          }
          : {}),
      },
    );
    progress?.(name, null);
    let errorType: ToolErrorType = "none";
    let data: string | undefined;
    let message: string | undefined;
    let savedAnswer: { toolCut: ToolCut; outputBytes: number } | undefined;
    if (called.ok) {
      savedAnswer = await this.#savedAnswer(called.result);
      const savedTo = await this.#saveMedia(name, called.result);
      const { text, isError } = mcpResultText(called.result, { savedTo });
      if (isError) {
        errorType = "tool_error";
        message = text || `Tool "${name}" reported an error without a message`;
      } else {
        data = text;
      }
    } else {
      const failure = called.failure;
      errorType = failure.kind === "timeout"
        ? "timeout"
        : failure.kind === "cancelled"
        ? "cancelled"
        : "internal_error";
      message = failure.kind === "cancelled"
        ? failure.message
        : failure.kind === "crashed"
        ? `MCP tool "${name}" failed: ${failure.message}. The server is started again on the next call`
        : `MCP tool "${name}" failed: ${failure.message}`;
    }
    const result = makeToolResult({
      executionTimeMs: performance.now() - started,
      ...(data === undefined ? {} : { data }),
      ...(errorType === "none" ? {} : { errorType }),
      ...(message === undefined ? {} : { errorMessage: message }),
    });
    const capped = await truncateToolResult(result, {
      tool: name,
      ...(this.options.dataDir ? { dataDir: this.options.dataDir } : {}),
      ...(this.options.maxOutputSize ? { maxOutputSize: this.options.maxOutputSize } : {}),
      ...(this.options.toolOutputLimit ? { toolOutputLimit: this.options.toolOutputLimit } : {}),
      ...(savedAnswer ?? {}),
    });
    const run = { result: capped, state: options.state };
    return this.options.afterCall?.(run) ?? run;
  }

  /**
   * What was cut of an answer too large to hold (message_reader.ts saved its text), for the
   * result's metadata: the file is named only when it is one of the workspace's saved outputs.
   */
  async #savedAnswer(
    result: McpCallResult,
  ): Promise<{ toolCut: ToolCut; outputBytes: number } | undefined> {
    const meta = (result as { _meta?: Record<string, unknown> })._meta?.[SAVED_ANSWER_META];
    if (typeof meta !== "object" || meta === null) return undefined;
    const { path, bytes, cut } = meta as { path?: unknown; bytes?: unknown; cut?: unknown };
    if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(cut)) return undefined;
    const saved = typeof path === "string" && this.options.dataDir !== undefined
      ? await savedOutputFile(path, this.options.dataDir)
      : undefined;
    return {
      toolCut: { bytes: cut as number, ...(saved ? { saved } : {}) },
      outputBytes: bytes as number,
    };
  }

  /**
   * Keeps a result's images and audio as files beside the cut outputs, so the session log
   * names where they are (the model reads only the note).
   */
  async #saveMedia(name: string, result: McpCallResult): Promise<Map<number, string>> {
    const saved = new Map<number, string>();
    const media = mcpMediaBlocks(result);
    if (media.length === 0 || this.options.dataDir === undefined) return saved;
    const dir = toolOutputsDir(this.options.dataDir);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    try {
      // Owner-only, as the cut outputs beside them (also when the folders already existed).
      ensurePrivateDir(this.options.dataDir);
      ensurePrivateDir(dir);
      for (const block of media) {
        const file = `${dir}/${name}-${stamp}-${block.index}.${block.extension}`;
        const bytes = Uint8Array.from(atob(block.data), (c) => c.charCodeAt(0));
        await Deno.writeFile(file, bytes, { mode: 0o600, createNew: true });
        saved.set(block.index, file);
      }
    } catch {
      // Not valid base64, or no room: the note still says what it was.
    }
    return saved;
  }

  async close(): Promise<void> {
    await this.servers.close();
  }
}

/** A checker for a tool's JSON Schema (zod's converter, loaded on first use). */
async function schemaCheck(
  schema: Record<string, unknown>,
): Promise<(args: unknown) => Result<unknown, string[]>> {
  const { z } = await import("zod");
  let parser: { safeParse(value: unknown): { success: boolean; error?: { issues: Issue[] } } };
  try {
    parser = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return (args) => ok(args); // a schema zod cannot read: the server checks the arguments
  }
  return (args) => {
    const parsed = parser.safeParse(args);
    if (parsed.success) return ok(args); // send what the model wrote, not zod's copy
    return err(
      (parsed.error?.issues ?? []).map((issue) =>
        issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message
      ),
    );
  };
}

interface Issue {
  path: PropertyKey[];
  message: string;
}
