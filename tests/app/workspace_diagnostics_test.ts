// The workspace's diagnostics load their engine only when needed (a -p run that edits nothing
// never reads a language server config), but the configs are still found when the workspace
// opens: a config the user had is used at the first edit, and one the model writes during the
// run (into the workspace or a home folder its grants let it write) starts nothing.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { join } from "node:path";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { workspaceDiagnostics } from "../../src/app/workspace_diagnostics.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";
import { diagnosticsBase } from "../helpers/diagnostics_engine.ts";

const FAKE = new URL("../helpers/fake_lsp_server.ts", import.meta.url).pathname;

/** opencode's config naming the fake server for `.txt` files. */
function opencodeConfig(): string {
  return JSON.stringify({
    lsp: {
      fake: {
        command: [Deno.execPath(), "run", "-A", FAKE],
        extensions: [".txt"],
        env: { FAKE_LSP_MODE: "normal" },
      },
    },
  });
}

/**
 * A workspace and a home folder, handed to the diagnostics as the user's places (not through
 * HOME: test files run in parallel in one process, which shares its environment).
 */
async function setting() {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_wsdiag_" }));
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_wsdiag_home_" }));
  // The model may write the workspace and the home folder (a wide grant the user gave).
  const flags = [`--allow-read=.,${home},${DENO_READ.join(",")}`, `--allow-write=.,${home}`];
  const parsed = parseGrantFlags(flags, { cwd: workspace });
  if (!parsed.ok) throw new Error("the test's flags do not parse");
  const open = () =>
    workspaceDiagnostics({
      ...diagnosticsBase(parsed.value.grants, workspace, {
        read: [workspace, home, ...DENO_READ],
        write: [workspace, home],
      }),
      io: { readLine: () => Promise.resolve(null), write: () => {} },
      interactive: false,
      userPlaces: { home, configHome: join(home, ".config") },
    });
  return {
    workspace,
    home,
    open,
    async [Symbol.asyncDispose]() {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test({
  name: "workspaceDiagnostics() uses the language server the user configured before the start",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using s = await setting();
    await Deno.mkdir(join(s.home, ".config", "opencode"), { recursive: true });
    await Deno.writeTextFile(
      join(s.home, ".config", "opencode", "opencode.json"),
      opencodeConfig(),
    );
    const diagnostics = s.open();
    try {
      const found = await diagnostics.check({
        path: "a.txt",
        absolute: join(s.workspace, "a.txt"),
        before: null,
        after: "one ERR\n",
      });
      match(String(found), /a\.txt:1:\d+: error \(fake\): bad token ERR/);
    } finally {
      await diagnostics.close();
    }
  },
});

Deno.test({
  name: "attack: a language server config the model writes after the start starts nothing",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using s = await setting();
    const diagnostics = s.open();
    try {
      // Before its first edit, the model writes opencode's user config with a command (its
      // grants allow it; no edit tool, so no diagnostics ran yet), then edits a file it names.
      await Deno.mkdir(join(s.home, ".config", "opencode"), { recursive: true });
      await Deno.writeTextFile(
        join(s.home, ".config", "opencode", "opencode.json"),
        opencodeConfig(),
      );
      const found = await diagnostics.check({
        path: "a.txt",
        absolute: join(s.workspace, "a.txt"),
        before: null,
        after: "one ERR\n",
      });
      assertEquals(found, undefined);
    } finally {
      await diagnostics.close();
    }
  },
});
