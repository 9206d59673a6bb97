// The file port of a tool's context (`ctx.files`): read, write, stat and list, on real
// absolute paths that ctx.resolve returned. In a sandbox worker it is the worker's own file
// access (local_files.ts: Deno's file system under the worker's grants and deny guard); under
// ACP the host serves the built-in file tools' calls from the editor's buffers, behind the one
// gate (src/acp/editor_files.ts). read_file, write_file and edit_file use only this port, so
// the editor gets the same tools.

/** A file's kind and size. */
export interface FileStat {
  kind: "file" | "directory" | "other";
  size: number;
}

/** What a write did. */
export interface FileWrite {
  /** Bytes written. */
  bytes: number;
  /** Whether the file existed before. */
  existed: boolean;
  /** Hard links the replaced file had (1 for a new file or where links do not apply). */
  links: number;
}

/** One entry of a folder. */
export interface ListedEntry {
  name: string;
  kind: "file" | "directory" | "symlink" | "other";
}

/**
 * A folder entry as a port lists it.
 *
 * @example
 * ```ts
 * import { listedEntry } from "./file_port.ts";
 * const entry = listedEntry({ name: "a", isFile: false, isDirectory: true, isSymlink: false });
 * if (entry.kind !== "directory") throw new Error(entry.kind);
 * ```
 */
export function listedEntry(entry: Deno.DirEntry): ListedEntry {
  const kind = entry.isFile
    ? "file"
    : entry.isDirectory
    ? "directory"
    : entry.isSymlink
    ? "symlink"
    : "other";
  return { name: entry.name, kind };
}

/**
 * How a tool reaches files. Each method throws a ToolError the model can act on (not_found,
 * validation_failed for what is no regular file or too large, io_error), or
 * `Deno.errors.NotCapable` for what the sandbox refuses.
 */
export interface FilePort {
  /**
   * The bytes of a regular file of at most 10 MB; with `head`, only its first bytes (any size).
   *
   * @param abs The real absolute path.
   * @param path The path the model gave, for messages.
   */
  read(abs: string, path: string, options?: { head?: number }): Promise<Uint8Array>;
  /** Writes text as the file's whole content (atomically on disk), making its folders. */
  write(abs: string, content: string, path: string): Promise<FileWrite>;
  /** The file's kind and size, or undefined when nothing is there. */
  stat(abs: string): Promise<FileStat | undefined>;
  /** A folder's entries, in the order the system lists them. */
  list(abs: string, path: string): Promise<ListedEntry[]>;
  /**
   * Throws the refusal (a permission_denied ToolError) a write to `abs` would meet. Optional:
   * a port without it refuses at the write.
   */
  mayWrite?(abs: string): void;
}

/**
 * The port of a call that changes one file (an edit tool's run, any preview): where the
 * change could not be written, its reads are refused before they reach the port's files, so
 * nothing is read (an editor is not asked) for a change that cannot happen.
 *
 * @param port The call's port.
 * @returns The port for the call.
 */
export function changePort(port: FilePort): FilePort {
  const mayWrite = port.mayWrite?.bind(port);
  if (!mayWrite) return port;
  return {
    read: (abs, path, options) =>
      Promise.resolve().then(() => mayWrite(abs)).then(() => port.read(abs, path, options)),
    stat: (abs) => Promise.resolve().then(() => mayWrite(abs)).then(() => port.stat(abs)),
    write: (abs, content, path) => port.write(abs, content, path),
    list: (abs, path) => port.list(abs, path),
    mayWrite,
  };
}
