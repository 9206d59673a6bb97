// Tells which agent wrote a transcript and hands it to that agent's reader. One-document
// formats (an opencode export, a Gemini CLI chat object, the TypeScript Codex's rollout) are
// told apart by their shape; JSON Lines formats by their first lines. A file none of them
// reads gets one line saying what it is not.

import type { Result } from "../../errors.ts";
import { err } from "../../errors.ts";
import type { ImportedSession } from "./imported_session.ts";
import { looksLikeClaudeCode, readClaudeCode } from "./claude_code_reader.ts";
import { isCodexDocument, looksLikeCodexLines, readCodexRollout } from "./codex_rollout_reader.ts";
import {
  type GeminiFolders,
  isGeminiDocument,
  looksLikeGeminiLines,
  readGeminiChat,
} from "./gemini_chat_reader.ts";
import { isOpencodeExport, readOpencodeExport } from "./opencode_export_reader.ts";
import { looksLikeHarnessExport, readHarnessExport } from "./harness_jsonl_reader.ts";
import { jsonLines, parseDocument } from "./transcript_lines.ts";

/** Lines read to tell a JSON Lines format. */
const SNIFF_LINES = 50;

/** What the formats are, for the message about a file none of them reads. */
export const KNOWN_FORMATS =
  "Claude Code JSONL, Codex rollouts, Gemini CLI chats, opencode exports and harness exports";

/**
 * Reads a transcript of any known agent.
 *
 * @param source The file's text.
 * @param file The file's path.
 * @param folders Where a Gemini CLI chat's folder may be found.
 * @returns The session, or why it cannot be read (naming the line where that helps).
 *
 * @example
 * ```ts
 * import { readTranscript } from "./read_transcript.ts";
 * const line = JSON.stringify({
 *   type: "user", uuid: "u1", parentUuid: null, sessionId: "s", cwd: "/w",
 *   timestamp: "2025-01-01T00:00:00Z", message: { role: "user", content: "hi" },
 * });
 * const r = readTranscript(line, "s.jsonl");
 * if (!r.ok || r.value.source.agent !== "claude-code" || r.value.cwd !== "/w") throw new Error();
 * ```
 */
export function readTranscript(
  source: string,
  file: string,
  folders: GeminiFolders = {},
): Result<ImportedSession, string> {
  const text = source.replace(/^\uFEFF/, "");
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.trimStart().startsWith("{"));
  if (start < 0) {
    const first = lines.findIndex((line) => line.trim() !== "");
    return err(`line ${first + 1} is not JSON: the file is not one of ${KNOWN_FORMATS}`);
  }
  const body = lines.slice(start).join("\n");
  const document = parseDocument(body, start + 1);
  if ("value" in document) {
    const value = document.value;
    if (isOpencodeExport(value)) return readOpencodeExport(value, file, start);
    if (isGeminiDocument(value)) return readGeminiChat(text, file, { document: value, folders });
    if (isCodexDocument(value)) return readCodexRollout(text, file, value);
  }
  const multiLine = lines.filter((line) => line.trim() !== "").length > 1;
  if ("value" in document && multiLine && start === 0) {
    return err(
      `line ${start + 1} starts a JSON document that is not one of ${KNOWN_FORMATS}`,
    );
  }
  if (start > 0) {
    // Text before the JSON is opencode's notice; a document after it must parse.
    return err(
      "error" in document
        ? document.error
        : `line ${start + 1} starts JSON that is not one of ${KNOWN_FORMATS}`,
    );
  }
  const sniff = jsonLines(lines.slice(0, SNIFF_LINES).join("\n"));
  if (looksLikeHarnessExport(sniff)) return readHarnessExport(text, file);
  if (looksLikeCodexLines(sniff)) return readCodexRollout(text, file);
  if (looksLikeGeminiLines(sniff)) return readGeminiChat(text, file, { folders });
  if (looksLikeClaudeCode(sniff)) return readClaudeCode(text, file);
  if (multiLine && sniff.some((line) => "error" in line) && "error" in document) {
    return err(document.error);
  }
  const first = sniff[0];
  return err(
    `line ${first?.line ?? 1} is ${
      first && "error" in first ? "not JSON" : "no line of a transcript harness knows"
    }: the file is not one of ${KNOWN_FORMATS}`,
  );
}
