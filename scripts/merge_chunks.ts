// The second step of the run's bundle (scripts/build_bundle.ts): Rollup merges the small
// chunks Deno's bundler wrote, so a run loads fewer files.

import { dirname, join } from "node:path";

/** The run's chunks smaller than this are merged into others (mergeChunks). */
const MIN_CHUNK_BYTES = 5000;

/**
 * Merges the run's small chunks: Rollup reads what Deno's bundler wrote and writes it again
 * into `out`, each chunk under MIN_CHUNK_BYTES put into one it is always loaded with. Deno's
 * bundler (esbuild) makes a chunk of every set of lazy modules that share code, so a -p run
 * loaded 91 files for 685 KB; Deno spends about 60 us on each module it loads, whatever its
 * size, and merged the run loads 35 files for 741 KB. Nothing is left out (no tree shaking):
 * the code is the code esbuild wrote, in fewer files. The imports of a package's package.json
 * go first (withoutPackageJsonImports says why).
 *
 * @param entry The run's entry in the folder Deno's bundler wrote.
 * @param out The bundle's folder.
 * @param say Where a note goes (Rollup not loaded).
 */
export async function mergeChunks(
  entry: string,
  out: string,
  say: (text: string) => void,
): Promise<void> {
  const folder = dirname(entry);
  for (const file of Deno.readDirSync(folder)) {
    const path = join(folder, file.name);
    Deno.writeTextFileSync(path, withoutPackageJsonImports(Deno.readTextFileSync(path)));
  }
  let rollup: typeof import("@rollup/wasm-node").rollup;
  try {
    ({ rollup } = await import("@rollup/wasm-node"));
  } catch (error) {
    // Offline with no copy of Rollup yet: the bundle works unmerged, a little slower to load.
    say(`Rollup did not load (${error instanceof Error ? error.message : error}): unmerged`);
    await Deno.mkdir(out, { recursive: true });
    for (const file of Deno.readDirSync(folder)) {
      await Deno.copyFile(join(folder, file.name), join(out, file.name));
    }
    return;
  }
  const problems: string[] = [];
  const build = await rollup({
    input: { run: entry },
    treeshake: false,
    preserveEntrySignatures: "allow-extension",
    logLevel: "warn",
    // The packages and Deno's built-ins stay imports, as esbuild left them.
    external: (id, _importer, resolved) => !resolved && !id.startsWith("."),
    onwarn(warning) {
      if (warning.code === "MISSING_EXPORT" || warning.code === "UNRESOLVED_IMPORT") {
        problems.push(warning.message);
      }
    },
  });
  try {
    if (problems.length > 0) throw new Error(`rollup: ${problems.join("; ")}`);
    await build.write({
      dir: out,
      format: "es",
      entryFileNames: "[name].js",
      chunkFileNames: "[name]-[hash].js",
      experimentalMinChunkSize: MIN_CHUNK_BYTES,
    });
  } finally {
    await build.close();
  }
}

/**
 * A file of the run's bundle without its imports of a package's package.json. They only name
 * the package for `deno compile` (src/code_index/grammar_assets.ts: the compile task embeds
 * the source graph, which keeps them); resolving one at start sets up Deno's npm resolution,
 * about 2.5 ms of CPU a -p run never needs. The tool worker's files keep theirs.
 *
 * @param text The file's text.
 * @returns The text without those imports.
 */
function withoutPackageJsonImports(text: string): string {
  return text.replace(
    /^import (["'])[\w@][\w@./-]*\/package\.json\1 with \{ type: (["'])json\2 \};\n/gm,
    "",
  );
}
