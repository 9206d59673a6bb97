// Reads a Claude Code transcript (~/.claude/projects/<folder>/<session>.jsonl): one JSON object
// a line, `type` user | assistant | system | summary | file-history-snapshot | ..., each message
// line with a `uuid` and the `parentUuid` it follows. The conversation is the chain from the
// last message back to the first (a rewind leaves the abandoned branch in the file; a
// compaction links back through `logicalParentUuid`). Lines that are not objects, `summary`
// lines (they have no uuid) and subagent (sidechain) lines are skipped and counted.

import type { Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import { describeSkipped, type ImportedSession } from "./imported_session.ts";
import { TranscriptBuilder } from "./transcript_builder.ts";
import { isoTime, joinTexts, type JsonLine, jsonLines, record, text } from "./transcript_lines.ts";

/** A message line of the transcript with its line number. */
interface Entry {
  line: number;
  value: Record<string, unknown>;
}

/** Line types that hold no part of the conversation. */
const NOT_MESSAGES = new Set([
  "file-history-snapshot",
  "queue-operation",
  "progress",
  "custom-title",
  "tag",
  "attachment",
]);

/**
 * Tells whether parsed lines look like a Claude Code transcript.
 *
 * @param lines The file's first lines.
 * @returns True when a line has Claude Code's message shape or is a `summary` line.
 */
export function looksLikeClaudeCode(lines: readonly JsonLine[]): boolean {
  return lines.some((line) => {
    const value = "value" in line ? record(line.value) : undefined;
    if (!value) return false;
    if (value.type === "summary" && "leafUuid" in value) return true;
    return (value.type === "user" || value.type === "assistant") && "uuid" in value &&
      ("sessionId" in value || "parentUuid" in value) && record(value.message) !== undefined;
  });
}

/**
 * Reads a Claude Code transcript.
 *
 * @param source The file's text.
 * @param file The file's path (for the session's source).
 * @returns The session, or why nothing could be read.
 */
export function readClaudeCode(source: string, file: string): Result<ImportedSession, string> {
  const lines = jsonLines(source);
  const first = lines.map((line) => "value" in line ? record(line.value) : undefined)
    .find((value) => value?.timestamp !== undefined);
  const builder = new TranscriptBuilder(
    "claude-code",
    isoTime(first?.timestamp) ?? new Date(0).toISOString(),
  );
  const entries = messageEntries(lines, builder);
  const chain = conversationChain(entries, builder);
  if (chain.length === 0) {
    const skipped = describeSkipped(builder.skipped);
    return err(`it holds no user or assistant message${skipped ? ` (${skipped})` : ""}`);
  }
  let model: string | undefined;
  for (const entry of chain) {
    const at = isoTime(entry.value.timestamp);
    if (entry.value.type === "assistant") {
      model = text(record(entry.value.message)?.model) ?? model;
      assistantLine(entry, builder, at);
    } else if (entry.value.type === "user") userLine(entry, builder, at);
    else if (!isCompaction(entry)) builder.skip(entry.line, "system lines");
  }
  const meta = chain.find((entry) => typeof entry.value.cwd === "string")?.value;
  const startedAt = isoTime(chain[0]!.value.timestamp) ?? builder.events[0]?.at ??
    new Date(0).toISOString();
  const sessionId = text(meta?.sessionId) ?? file.split(/[\\/]/).pop()!.replace(/\.jsonl$/, "");
  const version = text(meta?.version);
  const cwd = text(meta?.cwd);
  return ok(builder.session({
    source: { agent: "claude-code", id: sessionId, file, ...(version ? { version } : {}) },
    ...(cwd ? { cwd } : {}),
    ...(model ? { model } : {}),
    startedAt,
  }));
}

/** The lines that may be part of the conversation; the others are skipped and counted. */
function messageEntries(lines: readonly JsonLine[], builder: TranscriptBuilder): Entry[] {
  const entries: Entry[] = [];
  for (const line of lines) {
    if ("error" in line) {
      builder.skip(line.line, "not JSON");
      continue;
    }
    const value = record(line.value);
    if (!value) builder.skip(line.line, "not objects");
    else if (value.type === "summary" && value.uuid === undefined) {
      builder.skip(line.line, "summary lines without uuid");
    } else if (value.isSidechain === true) builder.skip(line.line, "subagent (sidechain) lines");
    else if (NOT_MESSAGES.has(String(value.type))) builder.skip(line.line, `${value.type} lines`);
    else if (value.type === undefined) builder.skip(line.line, "objects without a type");
    else if (value.type !== "user" && value.type !== "assistant" && value.type !== "system") {
      builder.skip(line.line, `lines of unknown type ${JSON.stringify(value.type)}`);
    } else entries.push({ line: line.line, value });
  }
  return entries;
}

/**
 * The conversation: the chain of parents from the last user or assistant line; without
 * parent links (old versions), the lines in file order. Lines off the chain are skipped.
 */
function conversationChain(entries: readonly Entry[], builder: TranscriptBuilder): Entry[] {
  const byId = new Map<string, Entry>();
  for (const entry of entries) {
    const id = text(entry.value.uuid);
    if (id !== undefined) byId.set(id, entry);
  }
  const leaf = entries.findLast((entry) =>
    entry.value.type !== "system" && text(entry.value.uuid) !== undefined
  );
  // Without parent links for most lines (old versions, hand-made files) the file's order is
  // the conversation's.
  const linked = entries.filter((entry) => byId.has(text(entry.value.parentUuid) ?? "")).length;
  if (!leaf || linked < (entries.length - 1) / 2) {
    return entries.filter((entry) => entry.value.type !== "system" || isCompaction(entry));
  }
  const chain: Entry[] = [];
  const seen = new Set<Entry>();
  for (let at: Entry | undefined = leaf; at && !seen.has(at);) {
    seen.add(at);
    chain.push(at);
    const parent: string | undefined = text(at.value.parentUuid) ??
      text(at.value.logicalParentUuid);
    at = parent === undefined ? undefined : byId.get(parent);
  }
  for (const entry of entries) {
    if (!seen.has(entry)) builder.skip(entry.line, "lines of an abandoned branch");
  }
  return chain.reverse();
}

function isCompaction(entry: Entry): boolean {
  return entry.value.subtype === "compact_boundary";
}

/** A user line: the user's words, tool results, or the summary of a compaction. */
function userLine(entry: Entry, builder: TranscriptBuilder, at: string | undefined): void {
  const content = record(entry.value.message)?.content;
  if (entry.value.isCompactSummary === true) {
    builder.compacted(typeof content === "string" ? content : joinTexts(blocks(content)), at);
    return;
  }
  if (entry.value.isMeta === true) {
    builder.skip(entry.line, "messages Claude Code added (isMeta)");
    return;
  }
  if (typeof content === "string") {
    builder.user(content, at);
    return;
  }
  const said: string[] = [];
  for (const block of blocks(content)) {
    const item = record(block);
    if (item?.type === "tool_result") {
      builder.result(String(item.tool_use_id ?? ""), resultText(item.content, builder), {
        error: item.is_error === true,
        ...(at ? { at } : {}),
      });
    } else if (item?.type === "text" && typeof item.text === "string") said.push(item.text);
    else said.push(builder.keep(describeBlock(item)));
  }
  builder.user(said.join("\n\n"), at);
}

/** An assistant line: text, reasoning and tool calls (one line per block in newer versions). */
function assistantLine(entry: Entry, builder: TranscriptBuilder, at: string | undefined): void {
  for (const block of blocks(record(entry.value.message)?.content)) {
    const item = record(block);
    if (item?.type === "text" && typeof item.text === "string") builder.assistant(item.text, at);
    else if (item?.type === "thinking" && typeof item.thinking === "string") {
      builder.reasoning(item.thinking);
    } else if (item?.type === "redacted_thinking") continue;
    else if (item?.type === "tool_use") {
      builder.call(text(item.id), String(item.name ?? ""), item.input ?? {}, at);
    } else builder.assistant(builder.keep(describeBlock(item)), at);
  }
}

function blocks(content: unknown): unknown[] {
  if (Array.isArray(content)) return content;
  return typeof content === "string" ? [{ type: "text", text: content }] : [];
}

/** A tool result's text: a string, or its text blocks (other blocks kept as text). */
function resultText(content: unknown, builder: TranscriptBuilder): string {
  if (typeof content === "string") return content;
  return blocks(content).map((block) => {
    const item = record(block);
    return item?.type === "text" && typeof item.text === "string"
      ? item.text
      : builder.keep(describeBlock(item));
  }).join("\n\n");
}

/** A block harness has no place for, in words. */
function describeBlock(item: Record<string, unknown> | undefined): string {
  if (item?.type === "image") {
    const source = record(item.source);
    return `Image (${text(source?.media_type) ?? "unknown type"}) not imported`;
  }
  const json = JSON.stringify(item ?? null);
  return `Claude Code ${String(item?.type ?? "content")}: ${json.slice(0, 2000)}`;
}
