// The editor's files as the built-in file tools' port (`ctx.files`, src/tools/file_port.ts):
// when the ACP client offers fs/read_text_file and fs/write_text_file, read_file, write_file,
// edit_file, insert_lines and replace_lines read and write its buffers (unsaved changes are
// seen, edits show in the editor), as the same tools the terminal runs (loose edits, CRLF and
// BOM, the line cap, images from disk). Every path passes the gate (editorGate) before the
// editor or the disk is asked; each write reports its diff. Without the editor's files, the
// sandboxed edits are diffed on disk by two stages around the run.

import { basename, dirname, join, relative } from "node:path";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { withSessionReads } from "../gate/session_reads.ts";
import {
  GateRefused,
  readGatedDir,
  readGatedFile,
  readGatedTextFile,
  statGated,
} from "../gate/gated_files.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";
import { flagFor } from "../sandbox/grants/describe_not_capable.ts";
import { sniffImageType } from "../platform/image_file.ts";
import { ToolError } from "../tools/define_tool.ts";
import { type FilePort, type FileStat, type ListedEntry, listedEntry } from "../tools/file_port.ts";
import { MAX_TEXT_FILE_BYTES } from "../tools/builtin/read_text_file.ts";
import { resolveWorkspacePath } from "../tools/workspace_path.ts";
import { toolOutputsDir } from "../config/folders.ts";
import { FILE_WRITE_TOOLS, isTool } from "../tools/builtin_tools.ts";
import type { CallFlight, PlacedStage } from "../agent/call_flight.ts";

/** The editor's file system (fs/read_text_file and fs/write_text_file). */
export interface EditorFs {
  read(path: string): Promise<string>;
  write(path: string, content: string): Promise<void>;
}

/** A file change made by a tool, for the editor's diff view. */
export interface FileDiff {
  path: string;
  oldText: string | null;
  newText: string;
}

/** What the editor's port and the disk's diff stages need. */
export interface EditorFilesOptions {
  workspace: string;
  grants: Grants;
  /** The workspace's file gate (issue 38): the editor's files sit behind it too. */
  gate: FileGate;
  /** Receives the diff of each successful edit, before its result is returned. */
  onDiff(diff: FileDiff): void;
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

/**
 * What every path the editor's port serves passes first: the run's grants allow `kind` access
 * to it and to what a symbolic link there points at (the editor follows it), and the file gate
 * lets it (the protected set, hidden folders, entries known by identity).
 *
 * @throws {ToolError} permission_denied, saying which flag would allow it or why not.
 */
function editorGate(options: EditorFilesOptions, kind: "read" | "write", abs: string): void {
  // A loaded skill's folder is readable for the session, and the full outputs a cut result
  // names: the same folders the read tools' workers get (sandbox_worker.ts).
  const outputs = kind === "read" ? savedOutputOf(options, abs) : undefined;
  const reads = [...options.gate.sessionReads(), ...(outputs === undefined ? [] : [outputs])];
  const grants = kind === "read" ? withSessionReads(options.grants, reads) : options.grants;
  const allows = (path: string) =>
    grantCovers(kind, grants.allow[kind], path) && !grantCovers(kind, grants.deny[kind], path);
  if (!allows(abs) || !allows(realTarget(abs))) {
    throw new ToolError(
      "permission_denied",
      `Requires ${kind} access to "${abs}": restart harness with ${flagFor(kind, abs)}`,
    );
  }
  const verdict = options.gate.check(
    kind,
    abs,
    outputs === undefined ? {} : { ungranted: outputs },
  );
  if (!verdict.ok) throw new ToolError("permission_denied", verdict.refusal.message);
}

/**
 * This workspace's saved outputs (the full output a cut result names, in harness's data
 * folder), readable when the grants let anything be read, as the read tools' workers have them.
 */
function savedOutputs({ grants, gate }: EditorFilesOptions): string[] {
  const reads = grants.allow.read;
  if (reads !== true && reads.length === 0) return [];
  const data = gate.rules.hidden.filter((entry) => entry.kind === "data");
  return data.flatMap((entry) => entry.except.map(toolOutputsDir));
}

/** The saved-outputs folder `abs` lies in, if any: its files need no grant of the gate. */
function savedOutputOf(options: EditorFilesOptions, abs: string): string | undefined {
  return savedOutputs(options).find((folder) => !relative(folder, abs).startsWith(".."));
}

/** A disk read through the gate: a gate's refusal is the model's permission_denied. */
async function gated<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof GateRefused) {
      throw new ToolError("permission_denied", error.refusal.message);
    }
    throw error;
  }
}

/** A file's bytes from disk through the gate: its first `head` bytes, or all (10 MB at most). */
async function diskBytes(
  gate: FileGate,
  abs: string,
  read: { head?: number | undefined; ungranted?: string | undefined } = {},
): Promise<Uint8Array> {
  const { head, ungranted } = read;
  const maxBytes = head === undefined ? MAX_TEXT_FILE_BYTES : Math.max(0, head - 1);
  const free = ungranted === undefined ? {} : { ungranted };
  const { bytes } = await gated(() => readGatedFile(gate, abs, { maxBytes, ...free }));
  if (head !== undefined) return bytes.subarray(0, head);
  if (bytes.length > MAX_TEXT_FILE_BYTES) {
    throw new ToolError("validation_failed", `"${abs}" is over the 10 MB read_file reads`);
  }
  return bytes;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether the file on disk is an image (its first bytes say so): it is read from disk. */
async function diskImage(gate: FileGate, abs: string): Promise<boolean> {
  try {
    return sniffImageType(await diskBytes(gate, abs, { head: 16 })) !== undefined;
  } catch {
    return false; // not on disk (a new buffer), or no regular file: the editor is asked
  }
}

/**
 * The editor's files as a file port: text from and to its buffers, images and folders from
 * disk, each path through the gate first. A write's diff is of the text the port last served
 * for that path (or reads it now).
 *
 * @param fs The editor's file system.
 * @param options The grants and where diffs go.
 * @returns The port, for the conversation's tools.
 */
export function editorFiles(fs: EditorFs, options: EditorFilesOptions): FilePort {
  /** The text last served for each path, null for none (a write's diff starts from it). */
  const served = new Map<string, string | null>();
  /** Texts a head read fetched, for the whole read that follows it (read_file does both). */
  const ahead = new Map<string, string>();
  return {
    async read(abs, path, read = {}) {
      editorGate(options, "read", abs);
      // A file outside the workspace (a loaded skill's) is not the editor's: read from disk.
      const outside = relative(options.workspace, abs).startsWith("..");
      if (outside || await diskImage(options.gate, abs)) {
        const ungranted = savedOutputOf(options, abs);
        return await diskBytes(options.gate, abs, { head: read.head, ungranted });
      }
      let text = ahead.get(abs);
      ahead.delete(abs);
      if (text === undefined) {
        try {
          text = await fs.read(abs);
        } catch (error) {
          served.set(abs, null);
          throw new ToolError("not_found", `Cannot read "${path}": ${errorText(error)}`);
        }
      }
      if (read.head !== undefined) ahead.set(abs, text);
      served.set(abs, text);
      const bytes = new TextEncoder().encode(text);
      return read.head === undefined ? bytes : bytes.subarray(0, read.head);
    },
    async write(abs, content, path) {
      editorGate(options, "write", abs);
      const oldText = served.has(abs) ? served.get(abs) ?? null : await previous(fs, options, abs);
      try {
        await fs.write(abs, content);
      } catch (error) {
        throw new ToolError("io_error", `Cannot write "${path}": ${errorText(error)}`);
      }
      served.delete(abs);
      options.onDiff({ path: abs, oldText, newText: content });
      return {
        bytes: new TextEncoder().encode(content).length,
        existed: oldText !== null,
        links: 1,
      };
    },
    async stat(abs): Promise<FileStat | undefined> {
      editorGate(options, "read", abs);
      try {
        const info = await gated(() => statGated(options.gate, abs));
        const kind = info.isFile ? "file" : info.isDirectory ? "directory" : "other";
        return { kind, size: info.size };
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      }
    },
    mayWrite(abs) {
      editorGate(options, "write", abs);
    },
    async list(abs): Promise<ListedEntry[]> {
      editorGate(options, "read", abs);
      const entries = await gated(() => readGatedDir(options.gate, abs));
      return entries.map(listedEntry);
    },
  };
}

/** The editor's text before a write it did not serve a read for; null when it has none. */
function previous(fs: EditorFs, options: EditorFilesOptions, abs: string): Promise<string | null> {
  try {
    editorGate(options, "read", abs);
  } catch {
    return Promise.resolve(null);
  }
  return fs.read(abs).catch(() => null);
}

/**
 * Without the editor's files: stages that read an edited file on disk before and after a
 * sandboxed edit tool ran, and report the diff.
 *
 * @param options The workspace, the grants (a file they do not let be read is not shown) and
 *   where diffs go.
 * @returns The stages, to place on each call's path.
 */
export function diskDiffStages(options: EditorFilesOptions): PlacedStage[] {
  const before = new WeakMap<CallFlight, string | null>();
  const edits = (flight: CallFlight) => isTool(flight.entry?.info, FILE_WRITE_TOOLS);
  const pathOf = (flight: CallFlight) => (flight.args as { path?: unknown } | undefined)?.path;
  return [
    {
      name: "diff_before",
      before: "run",
      async run(flight) {
        if (edits(flight)) before.set(flight, await diskText(pathOf(flight), options));
        return undefined;
      },
    },
    {
      name: "diff_after",
      after: "run",
      async run(flight) {
        if (!edits(flight) || !flight.run?.result.success) return undefined;
        const path = pathOf(flight);
        const after = await diskText(path, options);
        if (after !== null && typeof path === "string") {
          const abs = resolveWorkspacePath(options.workspace, path);
          options.onDiff({ path: abs, oldText: before.get(flight) ?? null, newText: after });
        }
        return undefined;
      },
    },
  ];
}

/** A file's text on disk, or null (not a path, not granted, not there, not readable). */
async function diskText(path: unknown, options: EditorFilesOptions): Promise<string | null> {
  if (typeof path !== "string") return null;
  try {
    const abs = resolveWorkspacePath(options.workspace, path);
    editorGate(options, "read", abs);
    return await readGatedTextFile(options.gate, abs);
  } catch {
    return null;
  }
}
