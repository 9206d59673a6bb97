// What a run loads of a bundle (scripts/build_bundle.ts): the files its entries import
// statically, followed through the chunks the build wrote.

/**
 * The bundle's files that `entries` load statically, with their sizes.
 *
 * @param folder The bundle's folder (.bundle/KEY/).
 * @param entries File names in it.
 */
export function staticClosure(folder: URL, entries: string[]): Map<string, number> {
  const loaded = new Map<string, number>();
  const queue = [...entries];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (loaded.has(name) || !name.endsWith(".js")) continue;
    const text = Deno.readTextFileSync(new URL(name, folder));
    loaded.set(name, text.length);
    for (const m of text.matchAll(/(?:\bfrom|^import)\s*(["'])\.\/([^"']+\.js)\1/gm)) {
      queue.push(m[2]!);
    }
  }
  return loaded;
}

/**
 * The files a -p run loads: run.js and the lazy modules on its path (one merged into a chunk
 * loaded anyway has no file of its own).
 *
 * @param folder The bundle's folder.
 * @returns The files with their sizes, or undefined when the folder has no chunk of the
 *   conversation or the provider (renamed modules: the caller's check cannot hold).
 */
export function printRunFiles(folder: URL): Map<string, number> | undefined {
  const names = [...Deno.readDirSync(folder)].map((entry) => entry.name);
  const lazy = ["prompt_ahead", "run_conversation", "open_provider", "openai_compat"]
    .flatMap((module) => names.filter((name) => name.startsWith(`${module}-`)));
  if (lazy.length < 2) return undefined;
  return staticClosure(folder, ["run.js", ...lazy]);
}
