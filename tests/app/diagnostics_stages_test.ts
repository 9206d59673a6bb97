// The edit diagnostics' stages on a call's path: the problems an edit introduced come back in
// the same result; a clean edit and a failed one add nothing.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { diagnosticsStages } from "../../src/app/diagnostics_stages.ts";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import { EditDiagnostics } from "../../src/diagnostics/edit_diagnostics.ts";
import { sandboxHost } from "../helpers/sandbox_host.ts";
import { EventLog, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

Deno.test("the diagnostics stages put the errors an edit introduced into the same result", async () => {
  await using h = await sandboxHost(
    ({ workspace }) => [`--allow-read=${workspace}`, `--allow-write=${workspace}`],
    {
      builtins: ["write_file", "edit_file"],
      files: ({ workspace }) => ({ [`${workspace}/app.py`]: "def f(:\n    return 1\n" }),
    },
  );
  const diagnostics = new EditDiagnostics({ workspace: h.workspace });
  const stages = diagnosticsStages(diagnostics, h.workspace);
  const call = async (name: string, args: Record<string, unknown>) => {
    const flight = await driveToolCall(
      { id: "c1", name, arguments: JSON.stringify(args) },
      {
        tools: toolScope(h.host),
        approver: new RecordingApprover(),
        sink: new EventLog().sink,
        state: {},
        stages,
      },
      new AbortController().signal,
    );
    if (!flight.result) throw new Error(`no result: ${flight.state.status}`);
    return flight.result;
  };
  try {
    // The file's old error is not repeated; the new one comes back with the edit's result.
    const broken = await call("edit_file", {
      path: "app.py",
      old_string: "    return 1\n",
      new_string: "    return 1\n\ny = [1, 2\n",
    });
    assert(broken.success, JSON.stringify(broken));
    const data = broken.data ?? "";
    assert(data.includes("[New problems after this edit]\napp.py:4:"), data);
    assert(!data.includes("app.py:1:"), data);
    assertEquals(broken.metadata.data_size_bytes, new TextEncoder().encode(data).length);
    // A clean write adds nothing.
    const clean = await call("write_file", { path: "ok.py", content: "x = 1\n" });
    assert(clean.success && !(clean.data ?? "").includes("New problems"), clean.data ?? "");
    // A failed call is not checked.
    const failed = await call("edit_file", { path: "app.py", old_string: "nope", new_string: "(" });
    assertEquals(failed.success, false);
  } finally {
    await diagnostics.close();
  }
});
