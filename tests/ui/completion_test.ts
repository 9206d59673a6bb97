// Tab completion: slash commands, and workspace paths after @ that respect .gitignore, never
// leave the workspace, and list only what the run's file gate lets the session list.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { complete } from "../../src/ui/completion.ts";
import { FileGate } from "../../src/gate/file_gate.ts";
import type { GateRules } from "../../src/gate/gate_types.ts";
import { tempDir } from "../helpers/temp_dir.ts";

/** The gate of a run with `--allow-read=WORKSPACE` and `over`. */
function gateOf(workspace: string, over: Partial<GateRules> = {}): FileGate {
  return FileGate.open({
    read: [workspace],
    write: [],
    denyRead: [],
    denyWrite: [],
    protected: [],
    protectedNames: [".git"],
    hidden: [],
    ...over,
  });
}

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
  const source = { commands: () => [], workspace: w, gate: gateOf(w) };
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
  const w = join(dir.path, "w");
  await Deno.symlink(dir.path, join(w, "up"));
  const source = { commands: () => [], workspace: w, gate: gateOf(w) };
  assertEquals(complete("@../", source), [[], "@../"]);
  assertEquals(complete("@/etc/", source), [[], "@/etc/"]);
  assertEquals(complete("@a/../../", source), [[], "@a/../../"]);
  // A link out of the read grant is not offered, nor what it leads to.
  assertEquals(complete("@u", source), [[], "@u"]);
  assertEquals(complete("@up/", source), [[], "@up/"]);
});

Deno.test("complete() lists only what the gate lets the session list", async () => {
  await using dir = await tempDir();
  const w = await Deno.realPath(dir.path);
  await Deno.mkdir(join(w, "secrets"));
  await Deno.writeTextFile(join(w, "secrets", "key.txt"), "");
  await Deno.mkdir(join(w, "data", "harness"), { recursive: true });
  await Deno.writeTextFile(join(w, "data", "harness", "harness.db"), "");
  for (const file of ["see-notes.md", "secret-notes.md", ".env", ".envrc"]) {
    await Deno.writeTextFile(join(w, file), "");
  }
  const gate = gateOf(w, {
    denyRead: [join(w, "secrets"), join(w, "secret-notes.md"), join(w, ".env")],
    hidden: [{ path: join(w, "data", "harness"), kind: "data", except: [] }],
  });
  const source = { commands: () => [], workspace: w, gate };
  assertEquals(complete("@se", source), [["@see-notes.md"], "@se"]);
  assertEquals(complete("@secrets/", source), [[], "@secrets/"]);
  assertEquals(complete("@.e", source), [["@.envrc"], "@.e"]);
  assertEquals(complete("@data/", source), [[], "@data/"]);
  assertEquals(complete("@data/harness/", source), [[], "@data/harness/"]);
  // Without a read grant nothing is listed; nor before the run's gate is known.
  assertEquals(complete("@", { ...source, gate: gateOf(join(w, "secrets")) }), [[], "@"]);
  assertEquals(complete("@", { commands: () => [], workspace: w }), [[], "@"]);
});
