// The local files a plugin imports: the sandbox grants read access to them only while the
// plugin is imported, and the schema cache fingerprints them so an edited helper file
// invalidates the cached schema of the plugin that imports it.

import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Local files a module imports statically (relative, absolute or `file:` specifiers), itself
 * included. Bare and remote specifiers (`zod`, `npm:`, `https:`) are not followed; an
 * unreadable file is left out (the import itself reports it).
 *
 * @param path Absolute path of the module.
 * @returns Absolute paths, the module first.
 *
 * @example
 * ```ts
 * import { localImportGraph } from "./import_graph.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.ts`, 'import { b } from "./b.ts";\nimport { z } from "zod";');
 * await Deno.writeTextFile(`${dir}/b.ts`, "export const b = 1;");
 * const files = [...await localImportGraph(`${dir}/a.ts`)];
 * if (files.length !== 2 || !files[1]!.endsWith("b.ts")) throw new Error(files.join());
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function localImportGraph(
  path: string,
  seen = new Set<string>(),
): Promise<Set<string>> {
  if (seen.has(path)) return seen;
  let source: string;
  try {
    source = await Deno.readTextFile(path);
  } catch {
    return seen; // the import itself will report the problem
  }
  seen.add(path);
  const specifiers = source.matchAll(
    /(?:^|[;\s])(?:import|export)\s*(?:type\s)?[^'"`;]*?(?:from\s*)?["']([^"']+)["']/g,
  );
  for (const [, specifier] of specifiers) {
    if (!specifier) continue;
    let target: string | undefined;
    if (specifier.startsWith("file:")) target = fileURLToPath(specifier);
    else if (specifier.startsWith(".")) target = resolve(dirname(path), specifier);
    else if (isAbsolute(specifier)) target = specifier;
    if (target) await localImportGraph(target, seen);
  }
  return seen;
}
