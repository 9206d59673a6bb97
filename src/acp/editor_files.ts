// The editor's files as the built-in file tools' port (`ctx.files`, src/tools/file_port.ts):
// when the ACP client offers fs/read_text_file and fs/write_text_file, read_file, write_file,
// edit_file, insert_lines and replace_lines read and write its buffers (unsaved changes are
// seen, edits show in the editor), as the same tools the terminal runs (loose edits, CRLF and
// BOM, the line cap, images from disk). Every path passes the gate (editorGate) before the
// editor or the disk is asked; each write reports its diff. Without the editor's files, the
// sandboxed edits are diffed on disk by two stages around the run.

import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type Grants } from "../sandbox/grants.ts";
import { grantCovers } from "../sandbox/permission_value.ts";
import type { PermissionName } from "../sandbox/permission_name.ts";
import { flagFor } from "../sandbox/describe_not_capable.ts";
import { sniffImageType } from "../platform/image_file.ts";
import { ToolError } from "../tools/define_tool.ts";
import type { FilePort } from "../tools/file_port.ts";
import { localFiles } from "../tools/local_files.ts";
import { resolveWorkspacePath } from "../tools/workspace_path.ts";
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
 * The gate every path the editor's port serves passes first: the run's grants allow `kind`
 * access to it and to what a symbolic link there points at (the editor follows it).
 *
 * @throws {ToolError} permission_denied, saying which flag would allow it.
 */
function editorGate(grants: Grants, kind: PermissionName, abs: string): void {
  const allows = (path: string) =>
    grantCovers(kind, grants.allow[kind], path) && !grantCovers(kind, grants.deny[kind], path);
  if (allows(abs) && allows(realTarget(abs))) return;
  throw new ToolError(
    "permission_denied",
    `Requires ${kind} access to "${abs}": restart harness with ${flagFor(kind, abs)}`,
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether the file on disk is an image (its first bytes say so): it is read from disk. */
async function diskImage(abs: string, path: string): Promise<boolean> {
  try {
    return sniffImageType(await localFiles.read(abs, path, { head: 16 })) !== undefined;
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
      editorGate(options.grants, "read", abs);
      if (await diskImage(abs, path)) return await localFiles.read(abs, path, read);
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
      editorGate(options.grants, "write", abs);
      const oldText = served.has(abs)
        ? served.get(abs) ?? null
        : await previous(fs, options.grants, abs);
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
    stat(abs) {
      editorGate(options.grants, "read", abs);
      return localFiles.stat(abs);
    },
    list(abs, path) {
      editorGate(options.grants, "read", abs);
      return localFiles.list(abs, path);
    },
  };
}

/** The editor's text before a write it did not serve a read for; null when it has none. */
function previous(fs: EditorFs, grants: Grants, abs: string): Promise<string | null> {
  try {
    editorGate(grants, "read", abs);
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
    editorGate(options.grants, "read", abs);
    return await readFile(abs, "utf8");
  } catch {
    return null;
  }
}
