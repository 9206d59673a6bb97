// Tab completion: slash commands, and workspace paths after @ that respect .gitignore and
// never leave the workspace.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { complete } from "../../src/ui/completion.ts";
import { tempDir } from "../helpers/temp_dir.ts";

Deno.test("complete() offers slash commands for / and nothing for a plain word", () => {
  const source = { commands: () => ["review", "resume", "help"], workspace: "/nowhere" };
  assertEquals(complete("/re", source), [["/resume", "/review"], "/re"]);
  assertEquals(complete("/", source)[0].length, 3);
  assertEquals(complete("/review src", source), [[], "/review src"]);
  assertEquals(complete("hello", source), [[], "hello"]);
});

Deno.test("complete() offers workspace paths after @, folders with a slash, without ignored ones", async () => {
  await using dir = await tempDir();
  const w = dir.path;
  await Deno.mkdir(join(w, "src", "lib"), { recursive: true });
  await Deno.mkdir(join(w, "node_modules", "x"), { recursive: true });
  await Deno.mkdir(join(w, ".git"));
  await Deno.writeTextFile(join(w, ".gitignore"), "node_modules/\n*.log\n");
  await Deno.writeTextFile(join(w, "src", ".gitignore"), "gen.ts\n");
  for (
    const file of ["src/main.ts", "src/gen.ts", "src/lib/a.ts", "notes.md", "debug.log", ".env"]
  ) {
    await Deno.writeTextFile(join(w, file), "");
  }
  await Deno.writeTextFile(join(w, "my notes.txt"), "");
  const source = { commands: () => [], workspace: w };
  assertEquals(complete("see @", source), [["@my\\ notes.txt", "@notes.md", "@src/"], "@"]);
  assertEquals(complete("see @src/", source), [["@src/lib/", "@src/main.ts"], "@src/"]);
  assertEquals(complete("@src/l", source), [["@src/lib/"], "@src/l"]);
  assertEquals(complete("@.", source), [["@.env", "@.gitignore"], "@."]);
  assertEquals(complete("@my\\ no", source), [["@my\\ notes.txt"], "@my\\ no"]);
});

Deno.test("complete() offers nothing outside the workspace", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "w"));
  await Deno.writeTextFile(join(dir.path, "secret.txt"), "");
  const source = { commands: () => [], workspace: join(dir.path, "w") };
  assertEquals(complete("@../", source), [[], "@../"]);
  assertEquals(complete("@/etc/", source), [[], "@/etc/"]);
  assertEquals(complete("@a/../../", source), [[], "@a/../../"]);
});
