import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import type { RunFlags } from "../../src/app/run_flags.ts";
import { startAhead } from "../../src/cli/prompt_ahead.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";

const FLAGS: RunFlags = {
  yes: false,
  plugins: [],
  continue: false,
  noSession: false,
  outputFormat: "text",
  model: "qwen3",
  baseUrl: "http://127.0.0.1:9/v1",
};

/** startAhead over a temp config home and cwd, recording what it writes and prints. */
async function run(
  flags: Partial<RunFlags>,
  options: { config?: string; withoutModel?: boolean } = {},
) {
  const root = await Deno.makeTempDir({ prefix: "harness_prompt_ahead_" });
  const cwd = join(root, "work");
  await Deno.mkdir(join(cwd, ".harness"), { recursive: true });
  if (options.config !== undefined) {
    await Deno.writeTextFile(join(cwd, ".harness", "config.jsonc"), options.config);
  }
  const written: string[] = [];
  const errors: string[] = [];
  const env: Record<string, string> = { XDG_CONFIG_HOME: join(root, "config"), NO_COLOR: "1" };
  const merged: RunFlags = { ...FLAGS, ...flags };
  if (options.withoutModel) delete merged.model;
  const result = await startAhead(merged, emptyGrants(), {
    printError: (message) => errors.push(message),
  }, {
    cwd,
    env: (name) => env[name],
    write: (text) => written.push(text),
    stdinIsTerminal: false,
    stdoutIsTerminal: false,
    newId: () => "11111111-2222",
  });
  await Deno.remove(root, { recursive: true });
  return { result, written, errors };
}

Deno.test("startAhead() shows the banner and prompt of a new session at once", async () => {
  const { result, written, errors } = await run({});
  assert(typeof result !== "number");
  assertEquals(result.shown, { sessionId: "11111111-2222" });
  assertEquals(result.settings.model, "qwen3");
  assertEquals(errors, []);
  const text = written.join("");
  assert(text.startsWith("harness "), text);
  assert(text.includes("· qwen3 @ http://127.0.0.1:9/v1\n"), text);
  assert(text.includes("\nsandbox: read=none"), text);
  assert(text.includes("\nsession 11111111-2222\n"), text);
  assert(text.endsWith("Ctrl-D exits\n> "), text);
});

Deno.test("startAhead() says there is no session log with --no-session", async () => {
  const { result, written } = await run({ noSession: true });
  assert(typeof result !== "number");
  assertEquals(result.shown, { sessionId: null });
  assert(written.join("").includes("\nno session log (--no-session)\n"));
});

Deno.test("startAhead() leaves the prompt to the REPL when it cannot show it yet", async (t) => {
  const cases: [string, Partial<RunFlags>, { withoutModel?: boolean }?][] = [
    ["-p", { prompt: "hi" }],
    ["--continue", { continue: true }],
    ["--resume ID", { resume: "abc" }],
    ["--resume", { resume: true }],
    ["no model named (the server is asked)", {}, { withoutModel: true }],
    ["a model file (load progress shows first)", { modelFile: "/m.gguf" }],
  ];
  for (const [name, flags, options] of cases) {
    await t.step(name, async () => {
      const { result, written, errors } = await run(flags, options);
      assert(typeof result !== "number");
      assertEquals(result.shown, undefined);
      assertEquals(written, []);
      assertEquals(errors, []);
    });
  }
});

Deno.test("startAhead() takes the model from the project config", async () => {
  const { result, written } = await run({}, {
    config: `{ "model": "llama3.2" } // project default`,
    withoutModel: true,
  });
  assert(typeof result !== "number");
  assertEquals(result.settings.model, "llama3.2");
  assert(written.join("").includes("· llama3.2 @ "));
});

Deno.test("startAhead() exits 2 on a bad config file without showing the prompt", async () => {
  const { result, written, errors } = await run({}, { config: `{ "model": 3 }` });
  assertEquals(result, 2);
  assertEquals(written, []);
  assertEquals(errors.length, 1);
  assert(errors[0]!.includes("config.jsonc"), errors[0]);
});

Deno.test("startAhead() moves errors off the prompt line until the REPL attaches", async () => {
  const { result, written, errors } = await run({});
  assert(typeof result !== "number");
  const before = written.length;
  result.printError("first");
  result.printError("second");
  assertEquals(written.slice(before), ["\n"]); // one line break, before the first error only
  assertEquals(errors, ["first", "second"]);

  const attached = await run({});
  assert(typeof attached.result !== "number");
  attached.result.attached();
  const count = attached.written.length;
  attached.result.printError("late");
  assertEquals(attached.written.length, count); // the REPL owns the line now
  attached.result.release(); // no raw mode was set: nothing to undo, no throw
});
