// Attack: a symbolic link inside a granted folder names a file outside the grants. Deno checks
// the link's path, not its target, so the file tools must open the target (the real path)
// for Deno's check, and the deny guard's, to apply to it. Runs the real CLI and sandbox.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox } from "../helpers/run_cli.ts";

const skip = Deno.build.os === "windows"; // symbolic links need privileges there

async function linkedSandbox() {
  const sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/public`);
  await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "private notes\n");
  await Deno.writeTextFile(`${sandbox.cwd}/public/ok.txt`, "public text\n");
  await Deno.symlink("../notes.txt", `${sandbox.cwd}/public/link.txt`);
  return sandbox;
}

Deno.test({
  name: "read_file refuses a link in the read grant whose target is outside it",
  ignore: skip,
  fn: async () => {
    await using sandbox = await linkedSandbox();
    const read = (path: string) =>
      sandbox.run(["--allow-read=public", "tool", "read_file", JSON.stringify({ path })]);
    const ok = JSON.parse((await read("public/ok.txt")).stdout);
    assertEquals(ok.data, "1: public text");
    const run = await read("public/link.txt");
    const result = JSON.parse(run.stdout);
    assertEquals(result.error_type, "permission_denied", run.stdout + run.stderr);
    assert(!run.stdout.includes("private notes"), run.stdout);
  },
});

Deno.test({
  name: "read_file refuses a link whose target a --deny-read entry names",
  ignore: skip,
  fn: async () => {
    await using sandbox = await linkedSandbox();
    const run = await sandbox.run([
      "--allow-read",
      "--deny-read=notes.txt",
      "tool",
      "read_file",
      JSON.stringify({ path: "public/link.txt" }),
    ]);
    assertEquals(JSON.parse(run.stdout).error_type, "permission_denied", run.stdout + run.stderr);
    assert(!run.stdout.includes("private notes"), run.stdout);
  },
});

Deno.test({
  name: "write_file and edit_file refuse a link in the write grant whose target is outside it",
  ignore: skip,
  fn: async () => {
    await using sandbox = await linkedSandbox();
    for (
      const [tool, args] of [
        ["write_file", { path: "public/link.txt", content: "pwned\n" }],
        ["edit_file", { path: "public/link.txt", old_string: "private", new_string: "pwned" }],
      ] as const
    ) {
      const run = await sandbox.run([
        "--allow-read",
        "--allow-write=public",
        "--yes",
        "tool",
        tool,
        JSON.stringify(args),
      ]);
      assertEquals(JSON.parse(run.stdout).error_type, "permission_denied", run.stdout + run.stderr);
    }
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/notes.txt`), "private notes\n");
    assert((await Deno.lstat(`${sandbox.cwd}/public/link.txt`)).isSymlink);
  },
});
