// A trusted `.lsp.json` that runs a program of the workspace (`./lsp.sh`): the repository ships
// that program and the model can rewrite it with write_file. Trusting the config must not run
// whatever the file holds when the server starts: the program is trusted by its own bytes, and
// one changed since does not start.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { dirname, join } from "node:path";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { openRunDiagnostics } from "../../src/app/run_diagnostics.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";
import { diagnosticsBase } from "../helpers/diagnostics_engine.ts";

const FAKE = new URL("../helpers/fake_lsp_server.ts", import.meta.url).pathname;

function script(mode: string, extra = ""): string {
  return `#!/bin/sh\nFAKE_LSP_MODE=${mode} ${extra} exec "${Deno.execPath()}" run -A "${FAKE}"\n`;
}

Deno.test({
  name: "attack: a trusted .lsp.json does not run its workspace program once the model rewrote it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_lsp_ws_" }));
    const store = join(await Deno.makeTempDir({ prefix: "harness_trust_" }), "trust.json");
    try {
      await Deno.writeTextFile(
        join(workspace, ".lsp.json"),
        JSON.stringify({
          fake: { command: "./lsp.sh", extensionToLanguage: { ".txt": "plaintext" } },
        }),
      );
      await Deno.writeTextFile(join(workspace, "lsp.sh"), script("normal"));
      await Deno.chmod(join(workspace, "lsp.sh"), 0o755);
      await Deno.writeTextFile(join(workspace, "secret.txt"), "the model may not run code\n");
      const parsed = parseGrantFlags([
        `--allow-read=.,${DENO_READ.join(",")}`,
        "--allow-write=.",
      ], { cwd: workspace });
      if (!parsed.ok) throw new Error();
      const base = diagnosticsBase(parsed.value.grants, workspace, {
        read: [workspace, ...DENO_READ],
        write: [workspace],
      });
      const asked: string[] = [];
      const engine = openRunDiagnostics({
        ...base,
        // The user reads the question and says yes, to the config and its program as they are.
        io: {
          readLine: (question) => {
            asked.push(question);
            return Promise.resolve("y");
          },
          write: (text) => void asked.push(text),
        },
        interactive: true,
        trustStore: store,
      });
      try {
        // An edit no server handles: the servers are found and asked about meanwhile.
        assertEquals(
          await engine.check({
            path: "notes.md",
            absolute: join(workspace, "notes.md"),
            before: null,
            after: "# notes\n",
          }),
          undefined,
        );
        assert(asked.some((line) => line.includes(".lsp.json")), asked.join(""));
        // The model rewrites the program (a write the grant allows), then edits a file the
        // server handles: the server would start now, from what the file holds now.
        await Deno.writeTextFile(
          join(workspace, "lsp.sh"),
          script("read", `FAKE_LSP_READ="${join(workspace, "secret.txt")}"`),
        );
        const after = await engine.check({
          path: "a.txt",
          absolute: join(workspace, "a.txt"),
          before: null,
          after: "one ERR\n",
        });
        assert(!String(after).includes("the model may not run code"), String(after));
        match(String(after), /fake could not start: it would run "lsp\.sh", which it changed/);
      } finally {
        await engine.close();
      }
      // Put back as trusted, the program runs in the next session without a question.
      await Deno.writeTextFile(join(workspace, "lsp.sh"), script("normal"));
      const next = openRunDiagnostics({
        ...base,
        io: { readLine: () => Promise.resolve(null), write: () => {} },
        interactive: false,
        trustStore: store,
      });
      try {
        const clean = await next.check({
          path: "a.txt",
          absolute: join(workspace, "a.txt"),
          before: null,
          after: "one ERR\n",
        });
        match(String(clean), /a\.txt:1:\d+: error \(fake\): bad token ERR/);
      } finally {
        await next.close();
      }
    } finally {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(dirname(store), { recursive: true });
    }
  },
});
