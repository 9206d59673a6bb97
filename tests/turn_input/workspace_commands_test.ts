// A project's command files pass the workspace's gate before they are hashed, asked about or
// read: one --deny-read covers is skipped with the gate's sentence, never sent to the model.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { loadWorkspaceCommands } from "../../src/turn_input/workspace_commands.ts";
import { FileGate } from "../../src/gate/file_gate.ts";

Deno.test("loadWorkspaceCommands() skips a project command file the gate refuses, before asking", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const w = join(root, "w");
    await Deno.mkdir(join(w, ".claude", "commands"), { recursive: true });
    await Deno.writeTextFile(join(w, ".claude", "commands", "ok.md"), "Review $1");
    await Deno.writeTextFile(join(w, ".claude", "commands", "secret.md"), "SECRET PROMPT");
    const gate = FileGate.open({
      read: [],
      write: [],
      denyRead: [join(w, ".claude", "commands", "secret.md")],
      denyWrite: [],
      protected: [],
      protectedNames: [],
      hidden: [],
    });
    let asked = "";
    const io = {
      readLine: (prompt: string) => {
        asked += prompt;
        return Promise.resolve("y");
      },
      write: (text: string) => void (asked += text),
    };
    const loaded = await loadWorkspaceCommands(w, {
      io,
      interactive: true,
      userConfigDir: join(root, "config", "harness"),
      gate,
      trustStoreFile: join(root, "config", "harness", "trust.json"),
    });
    assertEquals(loaded.commands.map((c) => c.name), ["ok"]);
    assert(!asked.includes("secret.md"), asked);
    assert(loaded.problems[0]?.includes("secret.md") && loaded.problems[0].includes("--deny-read"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
