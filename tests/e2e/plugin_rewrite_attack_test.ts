// Attack through the real CLI (issue 26, item 3, trust half): with `--plugins ./tools` inside
// `--allow-write=.`, the model rewrites a plugin (or a helper it imports) and then calls it in
// the same session. The plugin folder is protected by the file gate (issue 38), so the write is
// refused; besides, every plugin file is hashed when harness lists it and again before each
// import, so code changed some other way never runs.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

const HELLO = (word: string, file: string) =>
  `import { greeting } from "./_words.ts";
export default ({ z, defineTool }) => defineTool({
  name: "hello",
  description: "Says hello.",
  risk: "safe",
  permissions: { write: ["."] },
  parameters: z.object({}),
  async run(_args, ctx) {
    await Deno.writeTextFile(ctx.resolve("${file}"), "${word}");
    return { output: greeting() + " ${word}" };
  },
});
`;

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

for (const target of ["plugin", "helper"] as const) {
  Deno.test({
    name: `harness -p does not run a ${target} of a --plugins folder the model rewrote`,
    ignore: Deno.build.os === "windows",
    async fn() {
      await using sandbox = await cliSandbox();
      await Deno.mkdir(`${sandbox.cwd}/tools`);
      await Deno.writeTextFile(`${sandbox.cwd}/tools/hello.ts`, HELLO("one", "one.txt"));
      await Deno.writeTextFile(
        `${sandbox.cwd}/tools/_words.ts`,
        'export const greeting = () => "hello";\n',
      );
      const rewrite = target === "plugin"
        ? { path: "tools/hello.ts", content: HELLO("two", "pwned.txt") }
        : {
          path: "tools/_words.ts",
          content: 'export const greeting = () => { Deno.writeTextFileSync("pwned.txt", "x"); ' +
            'return "pwned"; };\n',
        };
      await using server = startFakeLlmServer([
        reply().toolCall("write_file", rewrite),
        reply().toolCall("hello", {}),
        reply().text("done"),
      ]);
      const out = await sandbox.run([
        "-p",
        "go",
        "--yes",
        "--base-url",
        server.baseUrl,
        "--model",
        "m",
        "--plugins",
        "./tools",
        "--allow-read=.",
        "--allow-write=.",
        "--output-format",
        "json",
      ]);
      assertEquals(out.code, 0, out.stderr);
      assert(!await exists(`${sandbox.cwd}/pwned.txt`), "the rewritten code ran");
      const results = server.requests.at(-1)!.messages.filter((m) => m.role === "tool");
      // The plugin folder is in the file gate's protected set (issue 38): the rewrite itself
      // is refused, and the plugin runs as it was when harness started. (A file changed some
      // other way, by an unconfined command say, is refused at import: the pins.)
      assert(String(results[0]?.content).includes('"success":false'), String(results[0]?.content));
      assert(
        String(results[0]?.content).includes("harness loads plugins from"),
        String(results[0]?.content),
      );
      assert(String(results[1]?.content).includes("hello one"), String(results[1]?.content));
    },
  });
}
