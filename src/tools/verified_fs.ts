// Open what was checked: the file tools get a real path (symbolic links resolved) from
// ctx.resolve, and between that check and the open a folder on the path can be swapped for a
// link that leads elsewhere. Deno has no openat or O_NOFOLLOW, so these helpers open, then
// verify that the path is still real and that the opened file is the one the path names now.

import { realPathSync as realpathSync } from "../platform/real_path.ts";
import { ToolError } from "./define_tool.ts";

/** The error for a path that changed between its check and its use. */
function changedError(path: string): ToolError {
  return new ToolError(
    "validation_failed",
    `"${path}" changed while harness was using it: a folder on its path is now a symbolic ` +
      `link that leads elsewhere; check the workspace for links and try again`,
  );
}

/** What identifies a file: its device and inode (null where the platform has none). */
export interface FileIdentity {
  ino: number | null;
  dev: number | null;
}

/** Same file: device and inode equal (where the platform reports them). */
function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  if (a.ino === null || b.ino === null || a.dev === null || b.dev === null) return true;
  return a.ino === b.ino && a.dev === b.dev;
}

/**
 * Throws unless `realPath` is still a real path: no component became a symbolic link.
 *
 * @param realPath An absolute path with symbolic links resolved (from ctx.resolve).
 * @param path The path the model gave, for the message.
 * @throws {ToolError} validation_failed when the path now resolves elsewhere.
 *
 * @example
 * ```ts
 * import { assertStillReal } from "./verified_fs.ts";
 * assertStillReal(Deno.realPathSync(Deno.cwd()), ".");
 * ```
 */
export function assertStillReal(realPath: string, path: string): void {
  let now: string;
  try {
    now = realpathSync(realPath); // the function workspace_path.ts resolved with, same format
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw changedError(path);
    throw error;
  }
  if (now !== realPath) throw changedError(path);
}

/**
 * Throws unless the file an open handle refers to (its fstat) is the one `realPath` names now,
 * and `realPath` is still free of symbolic links.
 *
 * @param opened The fstat of the open file (Deno's FileInfo or its device and inode).
 * @param realPath The real path it was opened by.
 * @param path The path the model gave, for the message.
 * @throws {ToolError} validation_failed when the path changed.
 *
 * @example
 * ```ts
 * import { assertOpenedIsNamed } from "./verified_fs.ts";
 * const path = Deno.realPathSync(await Deno.makeTempFile());
 * using file = Deno.openSync(path);
 * assertOpenedIsNamed(file.statSync(), path, "f.txt");
 * ```
 */
export function assertOpenedIsNamed(
  opened: FileIdentity,
  realPath: string,
  path: string,
): void {
  assertStillReal(realPath, path);
  if (!sameFile(opened, Deno.statSync(realPath))) throw changedError(path);
}

/**
 * Opens a file by its real path, then checks that it is the file the path names: the path is
 * still free of symbolic links and names the same device and inode as the open handle.
 *
 * @param realPath An absolute path with symbolic links resolved (from ctx.resolve).
 * @param path The path the model gave, for messages.
 * @param options Deno open options (read only by default).
 * @returns The open file (close it, e.g. with `using`) and its fstat.
 * @throws {ToolError} validation_failed when the path changed; Deno errors from open.
 *
 * @example
 * ```ts
 * import { openVerified } from "./verified_fs.ts";
 * const file = Deno.realPathSync(await Deno.makeTempFile());
 * const opened = openVerified(file, "f.txt");
 * opened.file.close();
 * if (!opened.info.isFile) throw new Error();
 * ```
 */
export function openVerified(
  realPath: string,
  path: string,
  options: Deno.OpenOptions = { read: true },
): { file: Deno.FsFile; info: Deno.FileInfo } {
  const file = Deno.openSync(realPath, options);
  try {
    const info = file.statSync();
    assertOpenedIsNamed(info, realPath, path);
    return { file, info };
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Reads the whole of an open file.
 *
 * @param file An open file.
 * @param size Its size from fstat, used as the first buffer size.
 * @returns The bytes.
 *
 * @example
 * ```ts
 * import { readAllSync } from "./verified_fs.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello");
 * using file = Deno.openSync(path);
 * if (new TextDecoder().decode(readAllSync(file, 5)) !== "hello") throw new Error();
 * ```
 */
export function readAllSync(file: Deno.FsFile, size: number): Uint8Array {
  let bytes = new Uint8Array(Math.max(size, 0) + 1);
  let length = 0;
  for (;;) {
    if (length === bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    const n = file.readSync(bytes.subarray(length));
    if (n === null || n === 0) break;
    length += n;
  }
  return bytes.subarray(0, length);
}

/**
 * Lists a folder by its real path and checks afterwards that the path was not swapped for a
 * symbolic link meanwhile (so the names listed are the folder's, not another's).
 *
 * @param realPath An absolute folder path with symbolic links resolved.
 * @param path The path the model gave, for messages.
 * @returns The entries.
 * @throws {ToolError} validation_failed when the path changed; Deno errors from readDir.
 *
 * @example
 * ```ts
 * import { readDirVerified } from "./verified_fs.ts";
 * const dir = Deno.realPathSync(await Deno.makeTempDir());
 * if (readDirVerified(dir, ".").length !== 0) throw new Error();
 * ```
 */
export function readDirVerified(realPath: string, path: string): Deno.DirEntry[] {
  const entries = Array.from(Deno.readDirSync(realPath));
  // A listing has no handle to compare (Deno has no fdopendir): the path must still be real.
  assertStillReal(realPath, path);
  return entries;
}
