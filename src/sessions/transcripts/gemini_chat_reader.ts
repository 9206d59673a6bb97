// Reads a Gemini CLI chat (~/.gemini/tmp/<project>/chats/session-*.json[l]) in both layouts it
// has written: one JSON object per session (`{ sessionId, projectHash, startTime, messages }`),
// and JSON Lines whose first line is that header without messages, followed by message records
// (a record repeating an id replaces the earlier one), `{ "$set": {...} }` patches of the
// header (a `messages` array in one replaces them all) and `{ "$rewindTo": id }` lines that drop
// that message and everything after it. The chat does not name its folder: the project's
// `.project_root` file does, or its hash matches the folder the import runs in.

import type { Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import type { ImportedSession } from "./imported_session.ts";
import { TranscriptBuilder } from "./transcript_builder.ts";
import { isoTime, type JsonLine, jsonLines, record, text } from "./transcript_lines.ts";

/** Where the chat's folder may be found. */
export interface GeminiFolders {
  /** What the project's `.project_root` file says, if there is one. */
  projectRoot?: string;
  /** The folder whose SHA-256 is this project hash, if one of the candidates is. */
  folderOf?(projectHash: string): string | undefined;
}

/** A message record with the line it was last written on. */
interface Record_ {
  line: number;
  value: Record<string, unknown>;
}

/**
 * Tells whether a JSON document is a Gemini CLI chat (the one-object layout).
 *
 * @param value The parsed file.
 */
export function isGeminiDocument(value: unknown): boolean {
  const doc = record(value);
  return typeof doc?.sessionId === "string" && Array.isArray(doc.messages);
}

/**
 * Tells whether JSON Lines look like a Gemini CLI chat.
 *
 * @param lines The file's first lines.
 */
export function looksLikeGeminiLines(lines: readonly JsonLine[]): boolean {
  return lines.some((line) => {
    const value = "value" in line ? record(line.value) : undefined;
    return value !== undefined && (
      (typeof value.sessionId === "string" && typeof value.projectHash === "string") ||
      record(value.$set) !== undefined || typeof value.$rewindTo === "string"
    );
  });
}

/**
 * Reads a Gemini CLI chat of either layout.
 *
 * @param source The file's text.
 * @param file The file's path.
 * @param options The parsed file when it is one JSON document, and where to find its folder.
 * @returns The session, or why nothing could be read.
 */
export function readGeminiChat(
  source: string,
  file: string,
  options: { document?: unknown; folders?: GeminiFolders } = {},
): Result<ImportedSession, string> {
  const builder = new TranscriptBuilder("gemini-cli", new Date(0).toISOString());
  const { meta, messages } = options.document !== undefined
    ? fromDocument(record(options.document)!)
    : fromLines(jsonLines(source), builder);
  if (typeof meta.sessionId !== "string") {
    return err('it has no header with a "sessionId": is it a Gemini CLI chat?');
  }
  const startedAt = isoTime(meta.startTime) ?? isoTime(messages[0]?.value.timestamp) ??
    new Date(0).toISOString();
  for (const message of messages) messageRecord(message, builder);
  if (builder.messages === 0 && builder.toolCalls === 0) {
    return err("it holds no user or model message");
  }
  const hash = text(meta.projectHash);
  const cwd = options.folders?.projectRoot ??
    (hash === undefined ? undefined : options.folders?.folderOf?.(hash));
  const model = messages.map((message) => text(message.value.model)).findLast((m) => m);
  return ok(builder.session({
    source: { agent: "gemini-cli", id: meta.sessionId, file },
    ...(cwd ? { cwd } : {}),
    ...(model ? { model } : {}),
    startedAt,
  }));
}

function fromDocument(doc: Record<string, unknown>) {
  const messages = (doc.messages as unknown[]).flatMap((value, index) => {
    const message = record(value);
    return message ? [{ line: index + 1, value: message }] : [];
  });
  return { meta: doc, messages };
}

/** Applies the JSON Lines records in order: headers, messages, patches and rewinds. */
function fromLines(
  lines: readonly JsonLine[],
  builder: TranscriptBuilder,
): { meta: Record<string, unknown>; messages: Record_[] } {
  let meta: Record<string, unknown> = {};
  let messages = new Map<string, Record_>();
  for (const line of lines) {
    if ("error" in line) {
      builder.skip(line.line, "not JSON");
      continue;
    }
    const value = record(line.value);
    if (!value) {
      builder.skip(line.line, "not objects");
    } else if (typeof value.$rewindTo === "string") {
      const ids = [...messages.keys()];
      const from = ids.indexOf(value.$rewindTo);
      for (const id of from < 0 ? ids : ids.slice(from)) messages.delete(id);
    } else if (record(value.$set)) {
      const patch = record(value.$set)!;
      if (Array.isArray(patch.messages)) {
        messages = new Map();
        for (const item of patch.messages) {
          const message = record(item);
          if (message && typeof message.id === "string") {
            messages.set(message.id, { line: line.line, value: message });
          }
        }
      }
      meta = { ...meta, ...patch };
    } else if (typeof value.id === "string") {
      const earlier = messages.get(value.id);
      if (earlier) earlier.value = value;
      else messages.set(value.id, { line: line.line, value });
    } else if (typeof value.sessionId === "string") {
      meta = { ...meta, ...value };
      for (const item of Array.isArray(value.messages) ? value.messages : []) {
        const message = record(item);
        if (message && typeof message.id === "string") {
          messages.set(message.id, { line: line.line, value: message });
        }
      }
    } else builder.skip(line.line, "lines of no known kind");
  }
  return { meta, messages: [...messages.values()] };
}

/** One message: the user's words, or the model's text, thoughts and tool calls. */
function messageRecord(message: Record_, builder: TranscriptBuilder): void {
  const { value, line } = message;
  const at = isoTime(value.timestamp);
  switch (value.type) {
    case "user":
      builder.user(partsText(value.content, builder), at);
      return;
    case "gemini": {
      for (const thought of Array.isArray(value.thoughts) ? value.thoughts : []) {
        const item = record(thought);
        const said = [text(item?.subject), text(item?.description)].filter(Boolean).join(": ");
        builder.reasoning(said);
      }
      builder.assistant(partsText(value.content, builder), at);
      for (const call of Array.isArray(value.toolCalls) ? value.toolCalls : []) {
        toolCall(record(call), builder, at);
      }
      return;
    }
    default:
      builder.skip(line, `${String(value.type ?? "untyped")} messages`);
  }
}

function toolCall(
  call: Record<string, unknown> | undefined,
  builder: TranscriptBuilder,
  at: string | undefined,
): void {
  if (!call) return;
  const when = isoTime(call.timestamp) ?? at;
  const id = builder.call(text(call.id), String(call.name ?? ""), call.args ?? {}, when);
  const status = text(call.status);
  const hasResult = call.result !== undefined && call.result !== null;
  const output = hasResult
    ? partsText(call.result, builder)
    : typeof call.resultDisplay === "string"
    ? call.resultDisplay
    : "";
  const options = when ? { at: when } : {};
  if (status === "success") builder.result(id, output, options);
  else if (status === "error") builder.result(id, output || "failed", { ...options, error: true });
  else if (status === "cancelled") {
    builder.result(id, output || "Cancelled in Gemini CLI", { ...options, error: true });
  }
}

/** Text of a PartListUnion (a string, a part, or a list of them). */
function partsText(content: unknown, builder: TranscriptBuilder): string {
  const parts = Array.isArray(content) ? content : content === undefined ? [] : [content];
  return parts.map((part) => {
    if (typeof part === "string") return part;
    const value = record(part);
    if (typeof value?.text === "string") return value.thought === true ? "" : value.text;
    const response = record(record(value?.functionResponse)?.response);
    if (response) {
      if (typeof response.output === "string") return response.output;
      if (typeof response.error === "string") return response.error;
      return JSON.stringify(response);
    }
    if (value?.inlineData || value?.fileData) return builder.keep("File or image not imported");
    return builder.keep(`Gemini CLI part: ${JSON.stringify(part).slice(0, 2000)}`);
  }).filter((piece) => piece !== "").join("\n\n");
}
