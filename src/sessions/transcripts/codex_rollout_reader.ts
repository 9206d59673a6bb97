// Reads a Codex rollout, in the three layouts Codex has written: the TypeScript CLI's one JSON
// document `{ session, items }` (rollout-DATE-ID.json), codex-rs's first JSON Lines layout (a
// bare `{ id, timestamp, instructions }` line, then bare response items and `record_type`
// lines), and today's (every line `{ timestamp, type, payload }`: session_meta, turn_context,
// response_item, event_msg, compacted). The conversation is in the response items; event_msg
// lines repeat it for the terminal and are skipped. Context Codex adds to the conversation
// (environment, AGENTS.md, developer messages) is skipped and counted.

import type { Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import type { ImportedSession } from "./imported_session.ts";
import { TranscriptBuilder } from "./transcript_builder.ts";
import { isoTime, joinTexts, type JsonLine, jsonLines, record, text } from "./transcript_lines.ts";

/** Today's line types. */
const WRAPPED_TYPES = new Set([
  "session_meta",
  "turn_context",
  "response_item",
  "event_msg",
  "compacted",
]);
/** Response item types (the bare layouts put them on lines of their own). */
const ITEM_TYPES = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "local_shell_call",
  "local_shell_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "web_search_call",
]);
/** Text Codex puts in user messages of its own. */
const INJECTED =
  /^\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<user_shell_command>|<turn_aborted>)/;

/**
 * Tells whether JSON Lines look like a Codex rollout (either JSON Lines layout).
 *
 * @param lines The file's first lines.
 */
export function looksLikeCodexLines(lines: readonly JsonLine[]): boolean {
  const values = lines.flatMap((line) => "value" in line ? [record(line.value)] : []);
  return values.some((value) =>
    value !== undefined && (
      (WRAPPED_TYPES.has(String(value.type)) && record(value.payload) !== undefined) ||
      "record_type" in value ||
      (ITEM_TYPES.has(String(value.type)) && !("payload" in value) && !("uuid" in value))
    )
  );
}

/**
 * Tells whether a JSON document is the TypeScript Codex's rollout `{ session, items }`.
 *
 * @param value The parsed file.
 */
export function isCodexDocument(value: unknown): boolean {
  const doc = record(value);
  return record(doc?.session) !== undefined && Array.isArray(doc?.items);
}

/** What the rollout says about itself. */
interface RolloutMeta {
  id?: string;
  cwd?: string;
  model?: string;
  version?: string;
  startedAt?: string;
}

/**
 * Reads a Codex rollout of any layout.
 *
 * @param source The file's text.
 * @param file The file's path.
 * @param document The parsed file when it is one JSON document (the TypeScript CLI's layout).
 * @returns The session, or why nothing could be read.
 */
export function readCodexRollout(
  source: string,
  file: string,
  document?: unknown,
): Result<ImportedSession, string> {
  const meta: RolloutMeta = {};
  const items: { line: number; at?: string; item: Record<string, unknown> }[] = [];
  const compactions = new Map<number, { summary: string; at?: string }>();
  const skipped: { line: number; reason: string }[] = [];
  if (document !== undefined) {
    const doc = record(document)!;
    const session = record(doc.session)!;
    Object.assign(meta, pick(session));
    (doc.items as unknown[]).forEach((item, index) => {
      const value = record(item);
      if (value) items.push({ line: index + 1, item: value });
      else skipped.push({ line: index + 1, reason: "items that are not objects" });
    });
  } else {
    for (const line of jsonLines(source)) collectLine(line, { meta, items, compactions, skipped });
  }
  const startedAt = meta.startedAt ?? items.find((item) => item.at)?.at ??
    new Date(0).toISOString();
  const builder = new TranscriptBuilder("codex", startedAt);
  for (const { line, reason } of skipped) builder.skip(line, reason);
  let compaction = [...compactions.entries()];
  for (const { line, at, item } of terminalCopies(items, builder)) {
    for (const [before, { summary, at: when }] of compaction) {
      if (before < line) builder.compacted(summary, when);
    }
    compaction = compaction.filter(([before]) => before >= line);
    responseItem(item, { line, builder, ...(at ? { at } : {}) });
  }
  for (const [, { summary, at }] of compaction) builder.compacted(summary, at);
  if (builder.messages === 0 && builder.toolCalls === 0) {
    return err("it holds no user or assistant message");
  }
  const id = meta.id ?? file.split(/[\\/]/).pop()!.replace(/\.jsonl?$/, "");
  return ok(builder.session({
    source: { agent: "codex", id, file, ...(meta.version ? { version: meta.version } : {}) },
    ...(meta.cwd ? { cwd: meta.cwd } : {}),
    ...(meta.model ? { model: meta.model } : {}),
    startedAt,
  }));
}

/**
 * The items to read: event_msg copies of the user's and the agent's words stand in only for a
 * role the response items never record (some Codex versions log those words as events only).
 */
function terminalCopies(
  items: { line: number; at?: string; item: Record<string, unknown> }[],
  builder: TranscriptBuilder,
): { line: number; at?: string; item: Record<string, unknown> }[] {
  const recorded = new Set(
    items.filter(({ item }) => item.type === "message").map(({ item }) => item.role),
  );
  return items.filter(({ line, item }) => {
    if (item.type !== "event_message") return true;
    if (!recorded.has(item.role)) return true;
    builder.skip(line, "event_msg lines (the terminal's copy)");
    return false;
  });
}

/** The fields of a session_meta payload (or bare first line) harness keeps. */
function pick(value: Record<string, unknown>): RolloutMeta {
  const id = text(value.id);
  const cwd = text(value.cwd);
  const version = text(value.cli_version);
  const startedAt = isoTime(value.timestamp);
  const model = text(value.model);
  return {
    ...(id ? { id } : {}),
    ...(cwd ? { cwd } : {}),
    ...(version ? { version } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(model ? { model } : {}),
  };
}

/** Sorts one JSON line into the meta, the response items, the compactions or the skipped. */
function collectLine(
  line: JsonLine,
  into: {
    meta: RolloutMeta;
    items: { line: number; at?: string; item: Record<string, unknown> }[];
    compactions: Map<number, { summary: string; at?: string }>;
    skipped: { line: number; reason: string }[];
  },
): void {
  const skip = (reason: string) => void into.skipped.push({ line: line.line, reason });
  if ("error" in line) return skip("not JSON");
  const value = record(line.value);
  if (!value) return skip("not objects");
  const at = isoTime(value.timestamp);
  const payload = record(value.payload);
  if (payload && WRAPPED_TYPES.has(String(value.type))) {
    switch (value.type) {
      case "session_meta":
        Object.assign(into.meta, { ...pick(payload), ...into.meta });
        return;
      case "turn_context": {
        const { cwd, model } = pick(payload);
        if (cwd) into.meta.cwd ??= cwd;
        if (model) into.meta.model = model;
        return;
      }
      case "response_item":
        into.items.push({ line: line.line, ...(at ? { at } : {}), item: payload });
        return;
      case "compacted":
        into.compactions.set(line.line, {
          summary: text(payload.message) ?? "",
          ...(at ? { at } : {}),
        });
        return;
      default: {
        // The terminal's copy of the conversation: used only when the response items lack it.
        const said = text(payload.message);
        const role = payload.type === "user_message"
          ? "user"
          : payload.type === "agent_message"
          ? "assistant"
          : undefined;
        if (role && said !== undefined) {
          into.items.push({
            line: line.line,
            ...(at ? { at } : {}),
            item: { type: "event_message", role, text: said },
          });
          return;
        }
        return skip("event_msg lines (the terminal's copy)");
      }
    }
  }
  if ("record_type" in value) return skip("record_type lines");
  if (payload) return skip(`lines of unknown type ${JSON.stringify(value.type)}`);
  if (value.type !== undefined) {
    into.items.push({ line: line.line, ...(at ? { at } : {}), item: value });
    return;
  }
  if (typeof value.id === "string" && into.items.length === 0) {
    Object.assign(into.meta, pick(value));
    return;
  }
  skip("lines of no known type");
}

/** One response item into the builder. */
function responseItem(
  item: Record<string, unknown>,
  where: { line: number; at?: string; builder: TranscriptBuilder },
): void {
  const { line, at, builder } = where;
  const id = text(item.call_id) ?? text(item.id);
  switch (item.type) {
    case "message":
      return message(item, where);
    case "event_message":
      if (item.role === "user") builder.user(String(item.text), at);
      else builder.assistant(String(item.text), at);
      return;
    case "reasoning":
      builder.reasoning(
        joinTexts(Array.isArray(item.summary) ? item.summary : []) ||
          joinTexts(Array.isArray(item.content) ? item.content : []),
      );
      return;
    case "function_call":
      builder.call(id, String(item.name ?? ""), item.arguments ?? "{}", at);
      return;
    case "custom_tool_call":
      builder.call(id, String(item.name ?? ""), { input: item.input ?? "" }, at);
      return;
    case "local_shell_call":
      builder.call(id, "local_shell", item.action ?? {}, at);
      return;
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output": {
      const { output, failed } = callOutput(item.output);
      builder.result(id ?? "", output, { error: failed, ...(at ? { at } : {}) });
      return;
    }
    case "web_search_call": {
      const query = text(record(item.action)?.query) ?? "";
      builder.assistant(builder.keep(`Codex searched the web for "${query}"`), at);
      return;
    }
    case "ghost_snapshot":
    case "compaction":
    case "compaction_summary":
      builder.skip(line, `${item.type} items`);
      return;
    default:
      builder.assistant(
        builder.keep(`Codex ${String(item.type)} item: ${JSON.stringify(item).slice(0, 2000)}`),
        at,
      );
  }
}

function message(
  item: Record<string, unknown>,
  where: { line: number; at?: string; builder: TranscriptBuilder },
): void {
  const { line, at, builder } = where;
  const parts = Array.isArray(item.content) ? item.content : [];
  const texts = parts.map((part) => {
    const value = record(part);
    if (typeof value?.text === "string") return value.text;
    if (value?.type === "input_image") return builder.keep("Image not imported");
    return builder.keep(`Codex ${String(value?.type ?? "content")}: ${JSON.stringify(part)}`);
  });
  const said = texts.join("\n\n");
  if (item.role === "assistant") builder.assistant(said, at);
  else if (item.role === "user") {
    if (INJECTED.test(said)) builder.skip(line, "messages of context Codex added");
    else builder.user(said, at);
  } else builder.skip(line, `${String(item.role)} messages (Codex's instructions)`);
}

/**
 * A call's output as text, in each layout: a string (the TypeScript CLI's is JSON
 * `{ output, metadata: { exit_code } }`), content items, or `{ content, success }`.
 */
function callOutput(output: unknown): { output: string; failed: boolean } {
  if (typeof output === "string") {
    const inner = record(safeParse(output));
    if (inner && typeof inner.output === "string") {
      const code = record(inner.metadata)?.exit_code;
      return { output: inner.output, failed: typeof code === "number" && code !== 0 };
    }
    return { output, failed: false };
  }
  if (Array.isArray(output)) return { output: joinTexts(output), failed: false };
  const value = record(output);
  if (value && typeof value.content === "string") {
    return { output: value.content, failed: value.success === false };
  }
  return { output: JSON.stringify(output ?? null), failed: false };
}

function safeParse(text: string): unknown {
  if (!text.startsWith("{")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
