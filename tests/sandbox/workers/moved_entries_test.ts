// A denied folder renamed after start (by a command, an editor, the user) stays refused to
// tools under its new name: the worker's copy of the gate knows it by device and inode, and
// the check after each call says what moved.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost } from "../../helpers/sandbox_host.ts";
import { FileGate } from "../../../src/gate/file_gate.ts";
import { noteMovedEntries } from "../../../src/sandbox/workers/moved_entries.ts";
import { makeToolResult } from "../../../src/messages.ts";

Deno.test("a tool cannot read a --deny-read folder renamed after the worker started", async () => {
  await using s = await sandboxHost(
    ({ workspace }) => [
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      `--deny-read=${workspace}/secrets`,
    ],
    {
      builtins: ["read_file"],
      files: ({ workspace }) => ({
        [join(workspace, "secrets", "key.txt")]: "TOP-SECRET",
        [join(workspace, "a.txt")]: "a",
      }),
    },
  );
  assertEquals((await s.call("read_file", { path: "a.txt" })).success, true);
  await Deno.rename(join(s.workspace, "secrets"), join(s.workspace, "open"));
  const result = await s.call("read_file", { path: "open/key.txt" });
  assertEquals(result.error_type, "permission_denied", JSON.stringify(result));
  assert(result.error_message?.includes(`"${join(s.workspace, "secrets", "key.txt")}"`));
  assert(!JSON.stringify(result).includes("TOP-SECRET"));
});

Deno.test("noteMovedEntries() adds what moved to the result once, and stops auto-approval", async () => {
  const w = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(join(w, ".env"), "K");
    const gate = FileGate.open({
      read: [w],
      write: [w],
      denyRead: [join(w, ".env")],
      denyWrite: [],
      protected: [],
      protectedNames: [],
      hidden: [],
    });
    const run = { result: makeToolResult({ data: "ok" }), state: {} };
    assertEquals(noteMovedEntries(run, gate), run);
    assertEquals(gate.autoApprovalStop(), undefined);
    await Deno.rename(join(w, ".env"), join(w, "env.txt"));
    const noted = noteMovedEntries(run, gate);
    assert(noted.result.data?.startsWith("ok\n[harness: "), noted.result.data ?? "");
    assert(noted.display?.includes("(--deny-read) was moved or removed"), noted.display);
    assertEquals(noteMovedEntries(run, gate), run);
    assert(gate.autoApprovalStop()?.startsWith("Auto-approval is off for this session"));
  } finally {
    await Deno.remove(w, { recursive: true });
  }
});
