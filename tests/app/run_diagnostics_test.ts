import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { probeCommandSandbox } from "../../src/sandbox/commands/command_sandbox_probe.ts";
import { serverGrants, startServer } from "../../src/app/run_diagnostics.ts";
import { LspSession } from "../../src/diagnostics/lsp_session.ts";

const FAKE = new URL("../helpers/fake_lsp_server.ts", import.meta.url).pathname;

Deno.test("serverGrants() lets a server write only its cache and read its own installation", () => {
  const parsed = parseGrantFlags(["--allow-read=.", "--allow-write=.", "--allow-net"], {
    cwd: "/w",
  });
  if (!parsed.ok) throw new Error();
  const grants = serverGrants(parsed.value.grants, "/opt/pyright/bin/pyright", "/c/lsp/pyright");
  assertEquals(grants.allow.write, ["/c/lsp/pyright"]);
  assertEquals(grants.allow.read, ["/w", "/opt/pyright", "/c/lsp/pyright"]);
  assertEquals(grants.allow.net, []);
});

Deno.test({
  name:
    "attack: a language server in the command sandbox cannot write the workspace or reach the network",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_lsp_ws_" }));
    const cache = await Deno.makeTempDir({ prefix: "harness_lsp_cache_" });
    try {
      await Deno.copyFile(FAKE, join(workspace, "server.ts"));
      // The user granted writes and the network to commands: the server still gets neither.
      const parsed = parseGrantFlags([
        "--allow-read=.",
        "--allow-write=.",
        "--allow-net",
        "--allow-run",
      ], {
        cwd: workspace,
      });
      if (!parsed.ok) throw new Error();
      const sandbox = probeCommandSandbox("auto", {
        grants: parsed.value.grants,
        env: Deno.env.toObject(),
      });
      const config = {
        name: "probe",
        command: Deno.execPath(),
        args: ["run", "-A", join(workspace, "server.ts")],
        languages: { ".txt": "plaintext" },
        // "watchful" quits when initialize names a pid it cannot see; "probe" then reports.
        env: { FAKE_LSP_MODE: "probe", XDG_CACHE_HOME: cache },
        source: "test",
      };
      const child = await startServer(config, {
        settings: { lsp: true, lspTimeout: 3000 },
        grants: parsed.value.grants,
        cwd: workspace,
        sandbox,
        io: { readLine: () => Promise.resolve(null), write: () => {} },
        interactive: false,
      });
      const session = new LspSession(config, child, workspace);
      try {
        const found = await session.diagnose(join(workspace, "a.txt"), "plaintext", {
          before: null,
          after: "x\n",
        });
        const said = found.after.map((d) => d.message);
        assertEquals(said.length, 2, said.join("; "));
        assert(said[0]!.startsWith("write refused"), said[0]);
        assert(said[1]!.startsWith("network refused"), said[1]);
        assert(!(await Deno.stat(join(workspace, "pwned")).catch(() => false)));
      } finally {
        await session.close();
      }
    } finally {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(cache, { recursive: true });
    }
  },
});

Deno.test({
  name: "a language server in its own PID namespace is not told harness's pid (it would quit)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_lsp_ws_" }));
    try {
      await Deno.copyFile(FAKE, join(workspace, "server.ts"));
      const parsed = parseGrantFlags(["--allow-read=.", "--allow-run"], { cwd: workspace });
      if (!parsed.ok) throw new Error();
      const config = {
        name: "watchful",
        command: Deno.execPath(),
        args: ["run", "-A", join(workspace, "server.ts")],
        languages: { ".txt": "plaintext" },
        env: { FAKE_LSP_MODE: "watchful" },
        source: "test",
      };
      const child = await startServer(config, {
        settings: { lsp: true, lspTimeout: 3000 },
        grants: parsed.value.grants,
        cwd: workspace,
        sandbox: probeCommandSandbox("auto", {
          grants: parsed.value.grants,
          env: Deno.env.toObject(),
        }),
        io: { readLine: () => Promise.resolve(null), write: () => {} },
        interactive: false,
      });
      const session = new LspSession(config, child, workspace);
      try {
        const found = await session.diagnose(join(workspace, "a.txt"), "plaintext", {
          before: null,
          after: "y ERR\n",
        });
        assertEquals(found.after.map((d) => d.message), ["bad token ERR"]);
      } finally {
        await session.close();
      }
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});
