// Reads what `opencode export` prints: one JSON document `{ info, messages: [{ info, parts }] }`
// (opencode's Session.Info and MessageV2 messages with their parts). opencode writes
// "Exporting session: ..." before the JSON (on stderr, which a user often saves with it), so
// lines before the first `{` are skipped. Tool parts carry their call and its state (completed
// with output, error, or pending/running: interrupted); a compaction part and the summary
// message after it become harness's compaction.

import type { Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import type { ImportedSession } from "./imported_session.ts";
import { TranscriptBuilder } from "./transcript_builder.ts";
import { isoTime, record, text } from "./transcript_lines.ts";

/** Part types that carry no conversation (steps, snapshots and patches of opencode's own). */
const STRUCTURAL = new Set(["step-start", "step-finish", "snapshot", "patch", "agent", "retry"]);

/**
 * Tells whether a JSON document is an opencode export.
 *
 * @param value The parsed document.
 */
export function isOpencodeExport(value: unknown): boolean {
  const doc = record(value);
  const first = Array.isArray(doc?.messages) ? record(doc.messages[0]) : undefined;
  return record(doc?.info) !== undefined && Array.isArray(doc?.messages) &&
    (first === undefined || (record(first.info) !== undefined && Array.isArray(first.parts)));
}

/**
 * Reads an opencode export.
 *
 * @param document The parsed export.
 * @param file The file's path.
 * @param skippedLines Lines before the JSON (opencode's own notice), reported as skipped.
 * @returns The session, or why nothing could be read.
 */
export function readOpencodeExport(
  document: unknown,
  file: string,
  skippedLines = 0,
): Result<ImportedSession, string> {
  const doc = record(document)!;
  const info = record(doc.info)!;
  const startedAt = isoTime(record(info.time)?.created) ?? new Date(0).toISOString();
  const builder = new TranscriptBuilder("opencode", startedAt);
  for (let line = 1; line <= skippedLines; line++) builder.skip(line, "lines before the JSON");
  let model: string | undefined;
  let cwd = text(info.directory);
  let compacting = false;
  for (const [index, item] of (doc.messages as unknown[]).entries()) {
    const message = record(item);
    const meta = record(message?.info);
    const parts = Array.isArray(message?.parts) ? message.parts : undefined;
    if (!message || !meta || !parts) {
      builder.skip(index + 1, "messages without info and parts");
      continue;
    }
    const at = isoTime(record(meta.time)?.created);
    if (meta.role === "user") {
      compacting = parts.some((part) => record(part)?.type === "compaction");
      if (!compacting) builder.user(userText(parts, builder), at);
    } else if (meta.role === "assistant") {
      model = text(meta.modelID) ?? model;
      cwd ??= text(record(meta.path)?.cwd);
      if (compacting || meta.summary === true) {
        builder.compacted(partTexts(parts), at);
        compacting = false;
      } else assistantParts(parts, builder, at);
    } else builder.skip(index + 1, `${String(meta.role)} messages`);
  }
  if (builder.messages === 0 && builder.toolCalls === 0) {
    return err("it holds no user or assistant message");
  }
  const version = text(info.version);
  return ok(builder.session({
    source: {
      agent: "opencode",
      id: text(info.id) ?? file.split(/[\\/]/).pop()!,
      file,
      ...(version ? { version } : {}),
    },
    ...(cwd ? { cwd } : {}),
    ...(model ? { model } : {}),
    startedAt,
  }));
}

/** The user's text parts (ignored ones left out), files and subtasks kept as text. */
function userText(parts: readonly unknown[], builder: TranscriptBuilder): string {
  return parts.flatMap((part) => {
    const value = record(part);
    if (value?.type === "text" && typeof value.text === "string") {
      return value.ignored === true ? [] : [value.text];
    }
    if (value?.type === "file") {
      return [
        builder.keep(
          `File ${text(value.filename) ?? text(value.url) ?? ""} (${
            text(value.mime) ?? "unknown type"
          }) not imported`,
        ),
      ];
    }
    if (STRUCTURAL.has(String(value?.type))) return [];
    return [
      builder.keep(`opencode ${String(value?.type)} part: ${JSON.stringify(part).slice(0, 2000)}`),
    ];
  }).join("\n\n");
}

function partTexts(parts: readonly unknown[]): string {
  return parts.flatMap((part) => {
    const value = record(part);
    return value?.type === "text" && typeof value.text === "string" ? [value.text] : [];
  }).join("\n\n");
}

/** An assistant message's parts: text, reasoning and tool calls with their state. */
function assistantParts(
  parts: readonly unknown[],
  builder: TranscriptBuilder,
  at: string | undefined,
): void {
  for (const part of parts) {
    const value = record(part);
    switch (value?.type) {
      case "text":
        if (typeof value.text === "string" && value.synthetic !== true) {
          builder.assistant(value.text, at);
        }
        break;
      case "reasoning":
        if (typeof value.text === "string") builder.reasoning(value.text);
        break;
      case "tool":
        toolPart(value, builder, at);
        break;
      default:
        if (!STRUCTURAL.has(String(value?.type))) {
          builder.assistant(
            builder.keep(
              `opencode ${String(value?.type)} part: ${JSON.stringify(part).slice(0, 2000)}`,
            ),
            at,
          );
        }
    }
  }
}

function toolPart(
  part: Record<string, unknown>,
  builder: TranscriptBuilder,
  at: string | undefined,
): void {
  const state = record(part.state) ?? {};
  const time = record(state.time);
  const started = isoTime(time?.start) ?? at;
  const ended = isoTime(time?.end) ?? started;
  const id = builder.call(
    text(part.callID) ?? text(part.id),
    String(part.tool ?? ""),
    state.input ?? {},
    started,
  );
  const options = ended ? { at: ended } : {};
  if (state.status === "completed") {
    const output = time?.compacted !== undefined
      ? "[Old tool result content cleared]"
      : text(state.output) ?? "";
    builder.result(id, output, options);
  } else if (state.status === "error") {
    builder.result(id, text(state.error) ?? "failed", { ...options, error: true });
  }
}
