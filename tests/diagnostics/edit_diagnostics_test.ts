import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { EditDiagnostics } from "../../src/diagnostics/edit_diagnostics.ts";
import { LanguageServers } from "../../src/diagnostics/language_servers.ts";
import type { LspServerConfig } from "../../src/diagnostics/lsp_config.ts";

const FAKE = new URL("../helpers/fake_lsp_server.ts", import.meta.url).pathname;

/** An engine whose `.txt` files go to the fake server in `mode`, over a temp workspace. */
async function engine(mode: string, timeoutMs = 5000, env: Record<string, string> = {}) {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_diag_" }));
  const config: LspServerConfig = {
    name: "fake",
    command: Deno.execPath(),
    args: ["run", "-A", FAKE],
    languages: { ".txt": "plaintext" },
    env: { FAKE_LSP_MODE: mode, ...env },
    source: "test",
  };
  const servers = new LanguageServers({
    servers: Promise.resolve([config]),
    workspace,
    start: (c) =>
      Promise.resolve(
        new Deno.Command(c.command, {
          args: c.args,
          env: c.env,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn(),
      ),
    timeoutMs,
  });
  const diagnostics = new EditDiagnostics({ workspace, servers });
  return {
    workspace,
    check: (path: string, before: string | null, after: string) =>
      diagnostics.check({ path, absolute: join(workspace, path), before, after }),
    async [Symbol.asyncDispose]() {
      await diagnostics.close();
      await Deno.remove(workspace, { recursive: true });
    },
  };
}

for (const mode of ["normal", "stale", "unversioned"]) {
  Deno.test(`EditDiagnostics reports only the new version's new errors (${mode} server)`, async () => {
    await using e = await engine(mode);
    const before = "one ERR\ntwo\n";
    // The old error moved down a line and stayed; a new one came; nothing of the old text's.
    const after = "zero\none ERR\ntwo ERR here\n";
    const text = await e.check("a.txt", before, after);
    assertEquals(
      text,
      "[New problems after this edit]\na.txt:3:5: error (fake): bad token ERR | two ERR here",
    );
    // Fixing it: nothing new to say, and the fixed error is never said again.
    assertEquals(await e.check("a.txt", after, "zero\none ERR\ntwo\n"), undefined);
  });
}

Deno.test("EditDiagnostics waits past a repeated unversioned push for the new text's", async () => {
  // A loaded machine: the old text's diagnostics, sent again, come 400 ms before the new
  // text's, longer than the quiet time after a push that changed something.
  await using e = await engine("unversioned", 5000, { FAKE_LSP_GAP_MS: "400" });
  const text = await e.check("a.txt", "one ERR\n", "one ERR\ntwo ERR\n");
  assertEquals(
    text,
    "[New problems after this edit]\na.txt:2:5: error (fake): bad token ERR | two ERR",
  );
});

Deno.test("EditDiagnostics skips a server that does not answer in time, with one note", async () => {
  await using e = await engine("silent", 500);
  const started = Date.now();
  const text = await e.check("a.txt", "x\n", "y ERR\n");
  assert(Date.now() - started < 3000, "waited past the limit");
  assertEquals(text, "[fake did not answer within 0.5 s; its diagnostics were skipped]");
});

Deno.test("EditDiagnostics says the syntax errors an edit introduced, without a server", async () => {
  await using e = await engine("normal");
  const before = "def f(:\n    pass\n";
  const text = await e.check("a.py", before, `x = 1\n${before}y = (\n`);
  assert(text?.startsWith("[New problems after this edit]\na.py:"), text);
  assert(!text?.includes("a.py:2:"), `the old error was repeated: ${text}`);
});
