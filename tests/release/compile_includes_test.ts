// `deno compile` embeds the modules reachable through literal imports from main.ts and from
// each --include. Modules imported through a specifier held in a constant (to keep them out of
// the start-up graph) are reachable only if the "compile" task includes them: this test finds
// every such import in main.ts and src/ and checks the task's --include list names it.

import { ok as assert } from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Project modules imported as `import(NAME)` where `const NAME = "./x.ts"` in the same file. */
function importsThroughConstants(file: string): string[] {
  const text = Deno.readTextFileSync(file);
  const found: string[] = [];
  for (const [, name] of text.matchAll(/\bimport\(([A-Z][A-Z0-9_]*)\)/g)) {
    const value = new RegExp(`const ${name} = "([^"]+)"`).exec(text)?.[1];
    assert(value !== undefined, `${relative(ROOT, file)}: import(${name}) without a constant`);
    if (value.startsWith(".")) found.push(relative(ROOT, join(dirname(file), value)));
  }
  return found;
}

Deno.test("the compile task includes every module imported through a constant", async () => {
  const task: string = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks.compile;
  const includes = [...task.matchAll(/--include (\S+)/g)].map((m) => m[1]!);
  const files = [join(ROOT, "main.ts"), ...sourceFiles(join(ROOT, "src"))];
  const lazy = files.flatMap(importsThroughConstants);
  assert(lazy.includes("src/cli/run_cli.ts"), `main.ts's lazy import not found: ${lazy}`);
  for (const module of lazy) {
    assert(
      includes.some((entry) => module === entry || module.startsWith(`${entry}/`)),
      `deno.json's compile task lacks --include ${module} (imported through a constant)`,
    );
  }
});
