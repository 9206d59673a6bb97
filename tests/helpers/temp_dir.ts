// Test helper: a real temporary folder removed at the end of the scope (`await using`).

/**
 * Creates a temporary folder that is deleted when disposed.
 *
 * @example
 * ```ts
 * import { tempDir } from "./temp_dir.ts";
 * await using dir = await tempDir();
 * await Deno.writeTextFile(`${dir.path}/a.txt`, "x");
 * ```
 */
export async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "harness_test_" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}
