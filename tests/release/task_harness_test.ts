// `deno task harness` from source, started in the user's own project with the checkout's
// config (the README's from-source command, issue 45 item 4): harness works on the folder the
// user stands in (Deno passes it as INIT_CWD), not on the checkout where a task runs.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliSandbox, shellEnv } from "../helpers/run_cli.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

Deno.test("deno task harness from another folder works on that folder", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, "mine.txt"), "the user's own file\n");
  const run = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "--config", CONFIG, "harness", ...args],
      cwd: sandbox.cwd,
      // Not this test run's INIT_CWD: Deno keeps one that is set, as npm does.
      clearEnv: true,
      env: { ...shellEnv(), ...sandbox.env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(text) as { data: string };
  };
  const cwd = await run(["tool", "get_working_directory", "{}", "--allow-read=."]);
  assertEquals(cwd.data, await Deno.realPath(sandbox.cwd));
  // "." in the flags is that folder too.
  const read = await run(["tool", "read_file", '{"path":"mine.txt"}', "--allow-read=."]);
  assertEquals(read.data.includes("the user's own file"), true, read.data);
});
