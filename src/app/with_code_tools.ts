// Adds the code-graph tools (src/code_index/code_tools.ts), which run in the host, to the
// sandboxed tool host, so the loop sees one ToolRunner. Every call of a sandboxed file tool
// is reported to the code tools afterwards, so the graph follows the files the model edits,
// and a whole-file read_file of a long file goes through the curator (file_curator.ts), whose
// side request builds on the conversation's next request (its prefix, for the server's cache).

import type { Result } from "../errors.ts";
import { makeToolResult } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import type { CodeTools } from "../code_index/code_tools.ts";
import type { SidePrefix } from "../code_index/file_curator.ts";
import type { ToolInfo, ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import type { PreviewResult } from "../tools/file_change.ts";
import type { ConversationPrefix } from "../agent/conversation.ts";

/** What the read_file curator needs; without it read_file is never curated. */
export interface CuratorSetup {
  /** The provider, once open (a workspace may open before it). */
  provider(): Provider | undefined;
  /** The last user messages: a new one invalidates cached choices. */
  contextText: () => string;
  /** The live conversation; without one there is no side request. */
  conversation: () => ConversationPrefix | undefined;
}

/** A ToolRunner (the host) with the code tools added; a plugin of the same name wins. */
export class WithCodeTools implements ToolRunner {
  /** Validated read_file arguments that named neither offset nor limit. */
  #wholeReads = new WeakSet<object>();

  constructor(
    readonly inner: ToolRunner,
    readonly code: CodeTools,
    readonly curator?: CuratorSetup,
  ) {}

  ready(): Promise<void> {
    return Promise.all([this.inner.ready?.(), this.code.ready()]).then(() => {});
  }

  #isCode(name: string): boolean {
    return this.code.has(name) && !this.inner.list().some((t) => t.name === name);
  }

  list(): readonly ToolInfo[] {
    const inner = this.inner.list();
    const names = new Set(inner.map((t) => t.name));
    return [...inner, ...this.code.list().filter((t) => !names.has(t.name))];
  }

  preview(
    name: string,
    args: unknown,
    state?: Record<string, unknown>,
  ): Promise<PreviewResult | undefined> {
    if (this.#isCode(name)) return Promise.resolve(undefined);
    return this.inner.preview?.(name, args, state) ?? Promise.resolve(undefined);
  }

  async validate(name: string, args: unknown): Promise<Result<unknown, string[]>> {
    if (this.#isCode(name)) return this.code.validate(name, args);
    const validated = await this.inner.validate(name, args);
    const raw = args as Record<string, unknown> | null;
    if (
      validated.ok && name === "read_file" && this.curator && this.code.available &&
      typeof validated.value === "object" && validated.value !== null &&
      raw?.offset === undefined && raw?.limit === undefined
    ) {
      this.#wholeReads.add(validated.value);
    }
    return validated;
  }

  async run(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal; state: Record<string, unknown> },
  ): Promise<ToolRun> {
    if (this.#isCode(name)) {
      const run = await this.code.run(name, args, options);
      return { ...run, state: options.state };
    }
    const run = await this.inner.run(name, args, options);
    if (!run.result.success) return run;
    this.code.noteToolRun(name, args);
    if (typeof args === "object" && args !== null && this.#wholeReads.has(args)) {
      return await this.#curate(args as { path: string }, run, options.signal);
    }
    return run;
  }

  /** Replaces a plain whole-file read by the curated one, when the curator manages. */
  async #curate(args: { path: string }, run: ToolRun, signal?: AbortSignal): Promise<ToolRun> {
    const curator = this.curator!;
    const provider = curator.provider();
    const data = run.result.data;
    if (!data || run.result.metadata.truncated || provider === undefined) return run;
    try {
      const started = performance.now();
      const { curateRead, plainReason } = await import("../code_index/file_curator.ts");
      const conversation = curator.conversation();
      const prefix = conversation && sidePrefix(conversation, args.path);
      // A short file or one that fits comfortably needs neither the outline nor the model.
      if (plainReason(data, prefix) !== undefined) return run;
      const { store, definitions } = await this.code.outline(args.path);
      const curated = await curateRead(args.path, data, {
        provider,
        store,
        outline: definitions,
        contextText: curator.contextText(),
        prefix,
        ...(signal ? { signal } : {}),
      });
      const usage = curated.usage ? { usage: curated.usage } : {};
      if (curated.kind === "plain") return { ...run, ...usage };
      return {
        ...run,
        result: makeToolResult({
          data: curated.output,
          executionTimeMs: run.result.metadata.execution_time_ms + performance.now() - started,
        }),
        display: curated.display,
        ...usage,
      };
    } catch {
      return run; // never a worse answer than the plain read
    }
  }

  async close(): Promise<void> {
    this.code.close();
    await this.inner.close();
  }
}

/**
 * The side request's prefix for the read of `path`: the conversation's next request, with the
 * calls of this model turn that have no result yet left out (their results would come after
 * this one); undefined when the call is not found.
 *
 * @param conversation The conversation's next request.
 * @param path The path the read_file call named.
 */
export function sidePrefix(conversation: ConversationPrefix, path: string): SidePrefix | undefined {
  const messages = conversation.messages;
  const turnStart = messages.findLastIndex((m) => m.kind === "assistant") + 1;
  const answered = new Set<string>();
  for (const m of messages.slice(turnStart)) {
    if (m.kind === "tool_result") answered.add(m.data.callId);
  }
  const call = messages.slice(turnStart).find((m) =>
    m.kind === "tool_call" && m.data.name === "read_file" && !answered.has(m.data.id) &&
    pathOf(m.data.arguments) === path
  );
  if (call?.kind !== "tool_call") return undefined;
  const turn = messages.slice(turnStart).filter((m) =>
    m.kind === "tool_result" || m === call || (m.kind === "tool_call" && answered.has(m.data.id))
  );
  const calls = turn.filter((m) => m.kind === "tool_call");
  const results = turn.filter((m) => m.kind === "tool_result");
  return {
    messages: [...messages.slice(0, turnStart), ...calls, ...results],
    tools: conversation.tools,
    callId: call.data.id,
    room: conversation.room,
    tokens: conversation.tokens,
  };
}

function pathOf(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === "object" && parsed !== null
      ? (parsed as Record<string, unknown>).path
      : undefined;
  } catch {
    return undefined;
  }
}
