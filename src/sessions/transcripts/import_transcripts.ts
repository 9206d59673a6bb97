// `harness sessions import FILE|DIR`: reads each transcript (transcript_files.ts), tells its
// agent and reads it (read_transcript.ts), gives a session whose folder is not recorded the
// folder the import runs in, and stores it (an import already in the log is not repeated).
// Each file gets one line saying what was imported, left out, kept as text and interrupted.

import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { SessionStore } from "../session_store_types.ts";
import { formatAgentError } from "../../errors.ts";
import { AGENT_NAMES, describeSkipped, type ImportedSession } from "./imported_session.ts";
import { KNOWN_FORMATS, readTranscript } from "./read_transcript.ts";
import type { TranscriptFiles } from "./transcript_files.ts";

/** What importing a path did, file by file. */
export interface ImportReport {
  /** One line per transcript, for the terminal. */
  lines: string[];
  imported: number;
  existing: number;
  /** Transcripts that could not be read or stored. */
  failed: number;
  /** Files under a folder that are not transcripts. */
  notTranscripts: string[];
  /** Tool calls answered `interrupted`, over all files. */
  interrupted: number;
  /** Calls left without a result after the import (always 0: every call gets one). */
  orphanedCalls: number;
}

/**
 * Imports the transcripts of a path into the session log.
 *
 * @param path A transcript file, or a folder holding transcripts (searched recursively).
 * @param context The store, the file access, and the folder the import runs in.
 * @returns The report.
 */
export async function importTranscripts(
  path: string,
  context: { store: SessionStore; files: TranscriptFiles; cwd: string },
): Promise<ImportReport> {
  const report: ImportReport = {
    lines: [],
    imported: 0,
    existing: 0,
    failed: 0,
    notTranscripts: [],
    interrupted: 0,
    orphanedCalls: 0,
  };
  let files: string[];
  try {
    files = await context.files.list(resolve(context.cwd, path));
  } catch (error) {
    report.failed++;
    report.lines.push(`Cannot import "${path}": ${describe(error)}`);
    return report;
  }
  const single = files.length === 1 && resolve(context.cwd, path) === files[0];
  for (const file of files) await importFile(file, { ...context, report, single });
  return report;
}

async function importFile(
  file: string,
  context: {
    store: SessionStore;
    files: TranscriptFiles;
    cwd: string;
    report: ImportReport;
    single: boolean;
  },
): Promise<void> {
  const { report, files, store } = context;
  let text: string;
  try {
    text = await files.read(file);
  } catch (error) {
    report.failed++;
    report.lines.push(`Cannot import "${file}": ${describe(error)}`);
    return;
  }
  const projectRoot = await files.projectRoot(file);
  const read = readTranscript(text, file, {
    ...(projectRoot ? { projectRoot } : {}),
    folderOf: (hash) => hash === sha256(context.cwd) ? context.cwd : undefined,
  });
  if (!read.ok) {
    if (!context.single && read.error.includes(`not one of ${KNOWN_FORMATS}`)) {
      report.notTranscripts.push(file);
      return;
    }
    report.failed++;
    report.lines.push(`Cannot import "${file}": ${read.error}`);
    return;
  }
  const session = withFolder(read.value, context.cwd);
  const stored = store.importSession(session);
  if (!stored.ok) {
    report.failed++;
    report.lines.push(`Cannot import "${file}": ${formatAgentError(stored.error)}`);
    return;
  }
  if (stored.value.existing) {
    report.existing++;
    report.lines.push(`Already imported: "${file}" is session ${stored.value.id}`);
    return;
  }
  report.imported++;
  report.interrupted += session.interrupted;
  report.orphanedCalls += orphanedCalls(session);
  report.lines.push(describeImport(file, stored.value.id, read.value.cwd, session));
}

/** A session whose folder the transcript does not name gets the folder the import runs in. */
function withFolder(session: ImportedSession, cwd: string): ImportedSession {
  if (session.cwd) return session;
  const [started, ...rest] = session.events;
  if (started?.type !== "session_started") return session;
  return {
    ...session,
    cwd,
    events: [{ ...started, payload: { ...started.payload, cwd } }, ...rest],
  };
}

/** Calls in the events without a result (a reader bug if ever more than 0). */
function orphanedCalls(session: ImportedSession): number {
  const open = new Set<string>();
  for (const event of session.events) {
    if (event.type === "tool_call_requested") open.add(event.payload.callId);
    if (event.type === "tool_call_finished") open.delete(event.payload.callId);
  }
  return open.size;
}

function describeImport(
  file: string,
  id: string,
  recorded: string | undefined,
  session: ImportedSession,
): string {
  const where = recorded
    ? `in ${recorded}`
    : `in ${session.cwd} (the transcript names no folder: the one the import ran in)`;
  const notes = [
    `${session.messages} message${session.messages === 1 ? "" : "s"}`,
    `${session.toolCalls} tool call${session.toolCalls === 1 ? "" : "s"}`,
    session.interrupted > 0 ? `${session.interrupted} answered "interrupted" (no result)` : "",
    session.keptAsText > 0 ? `${session.keptAsText} part(s) kept as text` : "",
    session.skipped.length > 0 ? `skipped ${describeSkipped(session.skipped)}` : "",
    session.inert?.length ? `kept as inert records: ${describeSkipped(session.inert)}` : "",
  ].filter(Boolean);
  return `Imported "${file}" (${AGENT_NAMES[session.source.agent]}) as session ${id} ${where}: ${
    notes.join("; ")
  }`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function describe(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file or folder";
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\.$/, "");
}
