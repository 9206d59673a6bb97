// File tools through the editor: when the ACP client offers fs/read_text_file and
// fs/write_text_file, read_file, write_file and edit_file read and write through it (unsaved
// buffers are seen, edits show in the editor), still bounded by the Deno grants, which are
// checked here on the host before anything is delegated. Edits also report a diff.

import { basename, dirname, isAbsolute, join } from "node:path";
import type { Result } from "../errors.ts";
import { makeToolResult, type ToolErrorType, type ToolResult } from "../messages.ts";
import type { Grants } from "../sandbox/grants.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { readGatedTextFile } from "../gate/gated_files.ts";
import { grantCovers } from "../sandbox/permission_value.ts";
import type { PermissionName } from "../sandbox/permission_name.ts";
import { flagFor } from "../sandbox/describe_not_capable.ts";
import { truncateMiddle } from "../sandbox/truncate_output.ts";
import { resolveWorkspacePath } from "../tools/workspace_path.ts";
import type { ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import { EDIT_TOOLS } from "./tool_updates.ts";

/** The editor's file system, as far as the client offers it. */
export interface EditorFs {
  read?(path: string): Promise<string>;
  write?(path: string, content: string): Promise<void>;
}

/** A file change made by a tool, for the editor's diff view. */
export interface FileDiff {
  path: string;
  oldText: string | null;
  newText: string;
}

/** Options of {@linkcode withEditorFiles}. */
export interface EditorFilesOptions {
  workspace: string;
  grants: Grants;
  fs: EditorFs;
  /** Cap on what the model reads from one result (characters). */
  outputLimit: number;
  /** Receives the diff of each successful edit, before its result is returned. */
  onDiff(diff: FileDiff): void;
  /** The workspace's file gate: the editor's files sit behind it (issue 38). */
  gate: FileGate;
}

/**
 * Whether the grants allow `kind` access to an absolute path (allowed and not denied).
 *
 * @example
 * ```ts
 * import { grantsAllow } from "./editor_files.ts";
 * import { emptyGrants } from "../sandbox/grants.ts";
 * const grants = emptyGrants();
 * grants.allow.read = ["/w"];
 * if (!grantsAllow(grants, "read", "/w/a") || grantsAllow(grants, "read", "/etc/x")) throw new Error();
 * ```
 */
export function grantsAllow(grants: Grants, kind: PermissionName, path: string): boolean {
  return grantCovers(kind, grants.allow[kind], path) && !grantCovers(kind, grants.deny[kind], path);
}

/** The real location of a path: symbolic links resolved, also for a file not yet created. */
function realTarget(abs: string): string {
  try {
    return Deno.realPathSync(abs);
  } catch {
    try {
      return join(Deno.realPathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

function failed(type: ToolErrorType, message: string, start: number): ToolResult {
  return makeToolResult({
    errorType: type,
    errorMessage: message,
    executionTimeMs: performance.now() - start,
  });
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? value as Record<string, unknown> : {};
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Wraps a tool runner so the built-in file tools go through the editor where it offers that,
 * and edits report diffs either way.
 *
 * @param inner The sandboxed tool host.
 * @param options Workspace, grants, the editor's fs and the diff receiver.
 * @returns A runner with the same tools.
 */
export function withEditorFiles(inner: ToolRunner, options: EditorFilesOptions): ToolRunner {
  const { fs } = options;
  const builtin = (name: string) =>
    inner.list().some((tool) => tool.name === name && tool.origin === "builtin");

  return {
    ...(inner.ready ? { ready: () => inner.ready!() } : {}),
    list: () => inner.list(),
    ...(inner.unavailableReason
      ? { unavailableReason: (name: string) => inner.unavailableReason!(name) }
      : {}),
    validate: (name, args) => inner.validate(name, args),
    ...(inner.preview ? { preview: inner.preview.bind(inner) } : {}),
    close: () => inner.close(),
    async run(name, args, runOptions): Promise<ToolRun> {
      const a = record(args);
      const state = runOptions.state;
      // An absolute path names a file outside the workspace (a saved output, a loaded skill's
      // folder): not the editor's, so the sandboxed read_file reads it, where the gate allows.
      const inWorkspace = typeof a.path !== "string" || !isAbsolute(a.path);
      if (name === "read_file" && fs.read && builtin(name) && inWorkspace) {
        return { result: await readThroughEditor(a, options), state };
      }
      if (
        (name === "write_file" && fs.write || name === "edit_file" && fs.write && fs.read) &&
        builtin(name)
      ) {
        return { result: await writeThroughEditor(name, a, options), state };
      }
      if (!EDIT_TOOLS.has(name)) return await inner.run(name, args, runOptions);
      // Edits that run in the sandbox: show what changed on disk.
      const before = await hostText(a.path, options);
      const run = await inner.run(name, args, runOptions);
      if (run.result.success) {
        const after = await hostText(a.path, options);
        const abs = grantedTarget(a.path, "read", 0, options);
        if (after !== null && abs.ok) {
          options.onDiff({ path: abs.value, oldText: before, newText: after });
        }
      }
      return run;
    },
  };
}

/** Resolves a workspace path and checks the grant; a failed result when not allowed. */
function grantedTarget(
  path: unknown,
  kind: PermissionName,
  start: number,
  { workspace, grants, gate }: Pick<EditorFilesOptions, "workspace" | "grants" | "gate">,
): Result<string, ToolResult> {
  if (typeof path !== "string") {
    return { ok: false, error: failed("validation_failed", "path is required", start) };
  }
  let abs: string;
  try {
    abs = resolveWorkspacePath(workspace, path);
  } catch (error) {
    return { ok: false, error: failed("validation_failed", errorText(error), start) };
  }
  // A symbolic link inside the granted folder may point elsewhere: its target must be
  // granted too, since the editor follows it.
  if (!grantsAllow(grants, kind, abs) || !grantsAllow(grants, kind, realTarget(abs))) {
    const message = `Requires ${kind} access to "${abs}": restart harness with ${
      flagFor(kind, abs)
    }`;
    return { ok: false, error: failed("permission_denied", message, start) };
  }
  // The gate: .git, .harness, plugin and harness folders, hidden data, moved entries.
  const verdict = gate.check(kind === "read" ? "read" : "write", abs);
  if (!verdict.ok) {
    return { ok: false, error: failed("permission_denied", verdict.refusal.message, start) };
  }
  return { ok: true, value: abs };
}

/** read_file through the editor (unsaved buffers included), as numbered lines. */
async function readThroughEditor(
  args: Record<string, unknown>,
  options: EditorFilesOptions,
): Promise<ToolResult> {
  const start = performance.now();
  const abs = grantedTarget(args.path, "read", start, options);
  if (!abs.ok) return abs.error;
  let text: string;
  try {
    text = await options.fs.read!(abs.value);
  } catch (error) {
    return failed("not_found", `Cannot read "${String(args.path)}": ${errorText(error)}`, start);
  }
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const offset = typeof args.offset === "number" ? args.offset : 1;
  const limit = typeof args.limit === "number" ? args.limit : 2000;
  if (lines.length === 0) {
    return makeToolResult({ data: `"${String(args.path)}" is empty (0 lines).` });
  }
  if (offset > lines.length) {
    return failed(
      "validation_failed",
      `offset ${offset} is past the end of "${String(args.path)}", which has ${lines.length} lines`,
      start,
    );
  }
  const data = truncateMiddle(numberedLines(lines, offset, limit), {
    limit: options.outputLimit,
  }).text;
  return makeToolResult({ data, executionTimeMs: performance.now() - start });
}

/** Lines `offset` to `offset + limit - 1`, numbered, and how to read on when more follow. */
function numberedLines(lines: string[], offset: number, limit: number): string {
  const last = Math.min(lines.length, offset + limit - 1);
  const width = String(last).length;
  const out = lines.slice(offset - 1, last).map((line, i) =>
    `${String(offset + i).padStart(width)}: ${line}`
  );
  if (last < lines.length) {
    out.push(
      `[Showing lines ${offset}-${last} of ${lines.length}. ${
        lines.length - last
      } more lines: call read_file with offset ${last + 1} to continue.]`,
    );
  }
  return out.join("\n");
}

/** write_file or edit_file through the editor, reporting the diff. */
async function writeThroughEditor(
  name: string,
  args: Record<string, unknown>,
  options: EditorFilesOptions,
): Promise<ToolResult> {
  const { fs } = options;
  const start = performance.now();
  const abs = grantedTarget(args.path, "write", start, options);
  if (!abs.ok) return abs.error;
  const readable = grantsAllow(options.grants, "read", abs.value) && fs.read !== undefined &&
    options.gate.check("read", abs.value).ok;
  let oldText: string | null = null;
  if (readable) oldText = await fs.read!(abs.value).catch(() => null);
  let newText: string;
  if (name === "write_file") {
    newText = typeof args.content === "string" ? args.content : "";
  } else {
    if (oldText === null) {
      return failed("not_found", `Cannot read "${String(args.path)}" to edit it`, start);
    }
    const edited = applyEdit(oldText, args);
    if (!edited.ok) return failed("validation_failed", edited.error, start);
    newText = edited.value.text;
  }
  try {
    await fs.write!(abs.value, newText);
  } catch (error) {
    return failed("io_error", `Cannot write "${String(args.path)}": ${errorText(error)}`, start);
  }
  options.onDiff({ path: abs.value, oldText, newText });
  const verb = name === "write_file" ? (oldText === null ? "Created" : "Overwrote") : "Edited";
  return makeToolResult({
    data: `${verb} "${String(args.path)}" in the editor (${newText.length} characters).`,
    executionTimeMs: performance.now() - start,
  });
}

/** A granted file's text on disk, or null (not granted, not there, not readable). */
async function hostText(path: unknown, options: EditorFilesOptions): Promise<string | null> {
  const start = performance.now();
  const abs = grantedTarget(path, "read", start, options);
  if (!abs.ok) return null;
  return await readGatedTextFile(options.gate, abs.value).catch(() => null);
}

/**
 * edit_file's rule: `old_string` must occur once unless `replace_all`.
 *
 * @example
 * ```ts
 * import { applyEdit } from "./editor_files.ts";
 * const r = applyEdit("a b a", { old_string: "a", new_string: "c", replace_all: true });
 * if (!r.ok || r.value.text !== "c b c") throw new Error();
 * if (applyEdit("a b a", { old_string: "a", new_string: "c" }).ok) throw new Error();
 * ```
 */
export function applyEdit(
  text: string,
  args: Record<string, unknown>,
): Result<{ text: string; count: number }, string> {
  const oldString = typeof args.old_string === "string" ? args.old_string : "";
  const newString = typeof args.new_string === "string" ? args.new_string : "";
  if (oldString === "") return { ok: false, error: "old_string is empty: give the exact text" };
  const count = text.split(oldString).length - 1;
  if (count === 0) {
    return {
      ok: false,
      error: "old_string was not found: read the file again and copy the text exactly",
    };
  }
  if (count > 1 && args.replace_all !== true) {
    return {
      ok: false,
      error: `old_string occurs ${count} times: include more lines or set replace_all to true`,
    };
  }
  return { ok: true, value: { text: text.split(oldString).join(newString), count } };
}
