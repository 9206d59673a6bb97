// The protected set as gateRules computes it at start: the repositories' git folders (a
// worktree's too), .harness, plugin and harness folders, git's program paths; the data folder
// hidden but for this workspace's outputs, the config folder but for skills and plugins;
// nothing that holds the workspace itself.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gateRules } from "../../src/gate/protected_set.ts";
import { FileGate } from "../../src/gate/file_gate.ts";

Deno.test("gateRules() protects a worktree's git folders and what its config runs", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const main = join(root, "main");
    const w = join(root, "wt");
    await Deno.mkdir(join(main, ".git", "worktrees", "wt"), { recursive: true });
    await Deno.mkdir(w);
    await Deno.writeTextFile(join(w, ".git"), `gitdir: ${main}/.git/worktrees/wt\n`);
    await Deno.writeTextFile(join(main, ".git", "worktrees", "wt", "commondir"), "../..\n");
    await Deno.writeTextFile(join(w, "mon.sh"), "");
    await Deno.writeTextFile(join(main, ".git", "config"), "[core]\n\tfsmonitor = ./mon.sh\n");
    const rules = gateRules({
      workspace: w,
      grants: { allow: { read: [w], write: [w] }, deny: { read: [], write: [] } },
      pluginFolders: [join(w, "plugins")],
      harness: { config: join(root, "cfg"), data: join(root, "data"), cache: join(root, "cache") },
      outputsDir: join(root, "data", "outputs", "x"),
      writableGit: false,
    });
    const kinds = rules.protected.map((e) => `${e.kind}:${e.path.slice(root.length)}`);
    for (
      const expected of [
        "project:/wt/.harness",
        "git:/wt/.git",
        "git:/main/.git/worktrees/wt",
        "git:/main/.git",
        "git_program:/wt/mon.sh",
        "plugins:/wt/plugins",
        "harness:/cfg",
        "harness:/cache",
      ]
    ) assert(kinds.includes(expected), `${expected} in ${kinds.join(" ")}`);
    assertEquals(rules.hidden, [{
      path: join(root, "data"),
      kind: "data",
      except: [join(root, "data", "outputs", "x")],
    }, {
      // The API key, hooks, policies and trust store: hidden but for skills and plugins.
      path: join(root, "cfg"),
      kind: "config",
      except: [join(root, "cfg", "plugins"), join(root, "cfg", "skills")],
    }]);
    assertEquals(rules.protectedNames, [".git"]);
    const writable = gateRules({
      workspace: w,
      grants: { allow: { read: [w], write: [w] }, deny: { read: [], write: [] } },
      pluginFolders: [],
      harness: { config: join(root, "cfg"), data: join(root, "data") },
      writableGit: true,
    });
    assertEquals(writable.protectedNames, []);
    assert(!writable.protected.some((e) => e.kind === "git"));
    // git's program paths stay protected with --writable-git.
    assert(writable.protected.some((e) => e.kind === "git_program"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("gateRules() leaves out a protected or hidden folder that holds the workspace", () => {
  const rules = gateRules({
    workspace: "/h/.config/harness",
    grants: { allow: { read: true, write: ["/h/.config/harness"] }, deny: { read: [], write: [] } },
    pluginFolders: [],
    harness: { config: "/h/.config/harness", data: "/h/.local/share/harness" },
    writableGit: false,
  });
  assert(!rules.protected.some((e) => e.path === "/h/.config/harness"), JSON.stringify(rules));
  assertEquals(rules.hidden.map((e) => e.kind), ["data"]);
  assertEquals(rules.read, true);
});

Deno.test("gateRules() protects harness's bundle, even in a workspace that holds the checkout", () => {
  // The checkout's .bundle/ is the code main.ts runs (src/platform/bundle_manifest.ts): a
  // tool, command or editor writing there would run outside the sandbox on the next start.
  const checkout = fileURLToPath(new URL("../../", import.meta.url)).replace(/[\\/]$/, "");
  const gate = FileGate.open(gateRules({
    workspace: checkout,
    grants: { allow: { read: [checkout], write: [checkout] }, deny: { read: [], write: [] } },
    pluginFolders: [],
    harness: { config: "/h/.config/harness", data: "/h/.local/share/harness" },
    writableGit: false,
  }));
  const bundle = join(checkout, ".bundle", "current.json");
  const write = gate.check("write", bundle);
  assert(!write.ok && write.refusal.reason === "protected", JSON.stringify(write));
  assert(!gate.check("delete", join(checkout, ".bundle")).ok);
  assert(gate.check("read", bundle).ok);
  assert(gate.check("write", join(checkout, "notes.txt")).ok);
});
