// The code tools' stages on each call's path (src/code_index/code_tools.ts is a source of the
// tool set): every call of a file tool is reported to the code tools afterwards, so the graph
// follows the files the model edits, and a whole-file read_file of a long file goes through the
// curator (file_curator.ts), whose side request builds on the conversation's next request (its
// prefix, for the server's cache).

import { makeToolResult } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import type { CodeTools } from "../code_index/code_tools.ts";
import type { SidePrefix } from "../code_index/file_curator.ts";
import type { ToolRun } from "../tools/tool_entry.ts";
import { isTool, READ_FILE } from "../tools/builtin_tools.ts";
import type { ConversationPrefix } from "../agent/conversation_parts.ts";
import type { CallFlight, CallScope, PlacedStage } from "../agent/call_flight.ts";

/** What the read_file curator needs; without it read_file is never curated. */
export interface CuratorSetup {
  /** The provider, once open (a workspace may open before it). */
  provider(): Provider | undefined;
  /** The last user messages: a new one invalidates cached choices. */
  contextText: () => string;
  /** The live conversation; without one there is no side request. */
  conversation: () => ConversationPrefix | undefined;
}

/**
 * The code tools' stages on each call's path: after a file tool ran, its file is re-indexed;
 * a whole-file read_file (no offset or limit) of a long file goes through the curator.
 *
 * @param code The workspace's code tools.
 * @param curator What the curator needs; without it read_file is never curated.
 * @returns The stages, to place on each call's path.
 */
export function codeToolStages(code: CodeTools, curator?: CuratorSetup): PlacedStage[] {
  /** Validated read_file arguments that named neither offset nor limit. */
  const wholeReads = new WeakSet<object>();
  return [
    {
      name: "whole_read",
      after: "validate",
      run(flight) {
        if (curator && code.available && wholeRead(flight)) wholeReads.add(flight.args as object);
        return undefined;
      },
    },
    {
      name: "index_update",
      after: "run",
      run(flight) {
        if (flight.run?.result.success) code.noteToolRun(flight.entry!.info, flight.args);
        return undefined;
      },
    },
    {
      name: "curator",
      after: "run",
      async run(flight, scope) {
        const { args, run } = flight;
        if (!curator || !run?.result.success) return undefined;
        if (typeof args !== "object" || args === null || !wholeReads.has(args)) return undefined;
        flight.run = await curate(args as { path: string }, run, { code, curator, scope });
        flight.result = flight.run.result;
        return undefined;
      },
    },
  ];
}

/** A read_file call that named neither offset nor limit (the model's own arguments). */
function wholeRead(flight: CallFlight): boolean {
  const parsed = flight.parsed as Record<string, unknown> | null | undefined;
  return isTool(flight.entry?.info, READ_FILE) && typeof flight.args === "object" &&
    flight.args !== null && parsed?.offset === undefined && parsed?.limit === undefined;
}

/** Replaces a plain whole-file read by the curated one, when the curator manages. */
async function curate(
  args: { path: string },
  run: ToolRun,
  at: { code: CodeTools; curator: CuratorSetup; scope: CallScope },
): Promise<ToolRun> {
  const { code, curator, scope } = at;
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
    const { store, definitions } = await code.outline(args.path);
    const curated = await curateRead(args.path, data, {
      provider,
      store,
      outline: definitions,
      contextText: curator.contextText(),
      prefix,
      signal: scope.signal,
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
    m.kind === "tool_call" && m.data.name === READ_FILE.name && !answered.has(m.data.id) &&
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
