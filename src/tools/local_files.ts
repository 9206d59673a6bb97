// A tool's own file access (`ctx.files` in a sandbox worker): Deno's file system, bounded by
// the worker's permissions and deny guard, with the built-in tools' checks (a regular file
// opened by its real path and verified after the open, at most 10 MB; atomic writes).

import { type FilePort, type FileStat, listedEntry } from "./file_port.ts";
import { readFileBytes } from "./builtin/read_text_file.ts";
import { writeFileAtomic } from "./builtin/text_file.ts";
import { readDirVerified } from "./verified_fs.ts";

/**
 * The file access of the process (or worker) it runs in.
 *
 * @example
 * ```ts
 * import { localFiles } from "./local_files.ts";
 * const dir = Deno.realPathSync(await Deno.makeTempDir());
 * await localFiles.write(`${dir}/a.txt`, "hi", "a.txt");
 * const bytes = await localFiles.read(`${dir}/a.txt`, "a.txt");
 * if (new TextDecoder().decode(bytes) !== "hi") throw new Error();
 * if ((await localFiles.stat(`${dir}/a.txt`))?.size !== 2) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const localFiles: FilePort = {
  // deno-lint-ignore require-await
  read: async (abs, path, options) => readFileBytes(abs, path, options?.head),
  // deno-lint-ignore require-await
  write: async (abs, content, path) => writeFileAtomic(abs, content, path),
  async stat(abs): Promise<FileStat | undefined> {
    try {
      const info = await Deno.stat(abs);
      return {
        kind: info.isFile ? "file" : info.isDirectory ? "directory" : "other",
        size: info.size,
      };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  },
  // deno-lint-ignore require-await
  list: async (abs, path) => readDirVerified(abs, path).map(listedEntry),
};
