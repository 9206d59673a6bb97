// Release smoke checks of plugins from disk: `harness plugin new` writes one that a model
// calls through -p; an edited project plugin is skipped until `harness plugin trust`; and a
// hand-written TypeScript plugin with a type import and a relative import runs from ./plugins.

import { join } from "node:path";
import { callTool, exists, expect, type SmokeCheck, writeFiles } from "./smoke_check.ts";

/** The hand-written plugin: a type-only import (erased) and a local module it runs. */
const WORD_STATS = `// A plugin written by hand and dropped into ./plugins (release smoke test).
import type { PluginApi } from "./lib/plugin_api.ts";
import { countWords } from "./lib/text_stats.ts";

export default ({ z, defineTool }: PluginApi) =>
  defineTool({
    name: "word_stats",
    description: "Count the words of a text file in the workspace.",
    risk: "safe",
    permissions: { read: ["."] },
    parameters: z.object({ path: z.string().describe("Workspace-relative path") }),
    async run({ path }: { path: string }, ctx: { resolve(path: string): string }) {
      const stats = countWords(await Deno.readTextFile(ctx.resolve(path)));
      return { output: \`\${stats.words} words; most frequent: \${stats.top}\` };
    },
  });
`;

/** Types only: the plugin imports them with `import type`, so nothing of this file runs. */
const PLUGIN_API = `// The parts of the plugin API word_stats uses (types only).
export interface PluginApi {
  // deno-lint-ignore no-explicit-any
  z: any;
  // deno-lint-ignore no-explicit-any
  defineTool<T>(definition: T): any;
}
`;

const TEXT_STATS = `// A helper module next to the plugin, imported at run time.
export interface WordStats {
  words: number;
  top: string;
}

export function countWords(text: string): WordStats {
  const words = text.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const [word, count] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ??
    ["", 0];
  return { words: words.length, top: \`\${word} (\${count})\` };
}
`;

const GREET = { who: "Release" };

/** The smoke checks of plugins, in order. */
export const PLUGIN_CHECKS: readonly SmokeCheck[] = [
  {
    name: "plugin new: the generated plugin is called by the model through -p",
    async run(ctx) {
      const folder = await ctx.folder();
      const made = await ctx.harness.run(folder, ["plugin", "new", "smoke_greet"]);
      expect(made.code === 0, "harness plugin new smoke_greet failed", made);
      expect(
        await exists(join(folder.cwd, "plugins", "smoke_greet.ts")),
        "plugins/smoke_greet.ts was not written",
        made,
      );
      const output = await callTool(ctx, folder, "smoke_greet", GREET);
      expect(output === "Hello, Release!", `smoke_greet returned ${JSON.stringify(output)}`);
      return `smoke_greet -> ${JSON.stringify(output)}`;
    },
  },
  {
    name: "plugin trust: an edited project plugin is skipped until trusted, then called",
    async run(ctx) {
      const folder = await ctx.folder();
      const made = await ctx.harness.run(folder, ["plugin", "new", "smoke_greet"]);
      expect(made.code === 0, "harness plugin new smoke_greet failed", made);
      const file = join(folder.cwd, "plugins", "smoke_greet.ts");
      const source = await Deno.readTextFile(file);
      expect(source.includes("`Hello, "), "the skeleton no longer says Hello");
      await Deno.writeTextFile(file, source.replace("`Hello, ", "`Hi, "));
      const skipped = await callTool(ctx, folder, "smoke_greet", GREET)
        .then(() => "called", (error: Error) => error.message);
      expect(
        skipped.includes('Tool "smoke_greet" was not offered'),
        `an edited, untrusted plugin must not load: ${skipped}`,
      );
      const trusted = await ctx.harness.run(folder, ["plugin", "trust"]);
      expect(trusted.code === 0, "harness plugin trust failed", trusted);
      expect(/Trusted plugins[\\/]smoke_greet\.ts/.test(trusted.stdout), "not trusted", trusted);
      const output = await callTool(ctx, folder, "smoke_greet", GREET);
      expect(output === "Hi, Release!", `smoke_greet returned ${JSON.stringify(output)}`);
      return `skipped while untrusted; after trust -> ${JSON.stringify(output)}`;
    },
  },
  {
    name: "dropped .ts plugin with a type import and a relative import runs from ./plugins",
    async run(ctx) {
      const folder = await ctx.folder();
      await writeFiles(folder.cwd, {
        "plugins/word_stats.ts": WORD_STATS,
        "plugins/lib/plugin_api.ts": PLUGIN_API,
        "plugins/lib/text_stats.ts": TEXT_STATS,
        "notes.txt": "the cat saw the dog. The end\n",
      });
      const trusted = await ctx.harness.run(folder, ["plugin", "trust", "plugins/word_stats.ts"]);
      expect(trusted.code === 0, "harness plugin trust plugins/word_stats.ts failed", trusted);
      const output = await callTool(ctx, folder, "word_stats", { path: "notes.txt" }, {
        args: ["--allow-read=."],
      });
      const expected = "7 words; most frequent: the (3)";
      expect(output === expected, `word_stats returned ${JSON.stringify(output)}`);
      return `word_stats -> ${JSON.stringify(output)}`;
    },
  },
];
