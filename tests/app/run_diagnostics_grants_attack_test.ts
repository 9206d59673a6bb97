// A language server's program decides the folder it may read besides the user's grants (its
// own installation). A program in the workspace, or one whose installation would be the home
// folder or the file system's root, must not read the workspace's neighbours, the home folder or
// everything: a server's diagnostics go to the model.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { dirname, join } from "node:path";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { probeCommandSandbox } from "../../src/sandbox/commands/command_sandbox_probe.ts";
import { serverGrants, startServer } from "../../src/app/run_diagnostics.ts";
import { LspSession } from "../../src/diagnostics/lsp_session.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";

const FAKE = new URL("../helpers/fake_lsp_server.ts", import.meta.url).pathname;

function grantsOf(flags: string[], cwd: string) {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value.grants;
}

Deno.test("attack: serverGrants() never grants a folder holding the workspace or the home folder", () => {
  const home = Deno.env.get("HOME") ?? "/root";
  const user = grantsOf(["--allow-read=."], "/w/app");
  const cache = "/c/lsp/x";
  for (const program of ["/w/app/lsp.sh", "/w/app/bin/lsp", `${home}/lsp`, "/init", "/opt/lsp"]) {
    const read = serverGrants(user, program, cache, "/w/app").allow.read;
    if (read === true) throw new Error(`${program}: everything readable`);
    for (const folder of read) {
      for (const kept of ["/w/app", home]) {
        const holds = kept === folder ||
          kept.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
        if (holds && !(folder === "/w/app" && kept === "/w/app")) {
          throw new Error(`${program}: grants "${folder}", which holds "${kept}"`);
        }
      }
    }
  }
  // An installation elsewhere keeps its folder: the program's package.
  assertEquals(
    serverGrants(user, "/opt/pyright/bin/pyright", cache, "/w/app").allow.read,
    ["/w/app", "/opt/pyright", cache],
  );
});

Deno.test({
  name: "attack: a language server run from the workspace cannot read the folder beside it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_lsp_root_" }));
    const workspace = join(root, "app");
    const secret = join(root, "other-project", ".env");
    const cache = join(root, "cache");
    try {
      await Deno.mkdir(dirname(secret), { recursive: true });
      await Deno.mkdir(workspace);
      await Deno.writeTextFile(secret, "TOKEN=hunter2\n");
      // The server a trusted .lsp.json names: a script of the workspace.
      const script = join(workspace, "lsp.sh");
      await Deno.writeTextFile(
        script,
        `#!/bin/sh\nexec "${Deno.execPath()}" run -A "${FAKE}"\n`,
      );
      await Deno.chmod(script, 0o755);
      const grants = grantsOf([`--allow-read=.,${DENO_READ.join(",")}`, "--allow-run"], workspace);
      const config = {
        name: "reader",
        command: "./lsp.sh",
        args: [],
        languages: { ".txt": "plaintext" },
        env: { FAKE_LSP_MODE: "read", FAKE_LSP_READ: secret, XDG_CACHE_HOME: cache },
        source: "test",
      };
      const cwd = Deno.cwd();
      Deno.chdir(workspace); // the command is relative, as in a .lsp.json
      let child: Deno.ChildProcess;
      try {
        child = await startServer(config, {
          settings: { lsp: true, lspTimeout: 3000 },
          grants,
          cwd: workspace,
          sandbox: probeCommandSandbox("auto", { grants, env: Deno.env.toObject() }),
          io: { readLine: () => Promise.resolve(null), write: () => {} },
          interactive: false,
        });
      } finally {
        Deno.chdir(cwd);
      }
      const session = new LspSession(config, child, workspace);
      try {
        const found = await session.diagnose(join(workspace, "a.txt"), "plaintext", {
          before: null,
          after: "x\n",
        });
        const said = found.after.map((d) => d.message);
        assertEquals(said.length, 1, said.join("; "));
        match(said[0]!, /^read refused/);
      } finally {
        await session.close();
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
