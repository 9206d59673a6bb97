import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { withDiagnostics } from "../../src/app/with_diagnostics.ts";
import { EditDiagnostics } from "../../src/diagnostics/edit_diagnostics.ts";
import { sandboxHost } from "../helpers/sandbox_host.ts";

Deno.test("withDiagnostics() puts the errors an edit introduced into the same result", async () => {
  await using h = await sandboxHost(
    ({ workspace }) => [`--allow-read=${workspace}`, `--allow-write=${workspace}`],
    {
      builtins: ["write_file", "edit_file"],
      files: ({ workspace }) => ({ [`${workspace}/app.py`]: "def f(:\n    return 1\n" }),
    },
  );
  const diagnostics = new EditDiagnostics({ workspace: h.workspace });
  const tools = withDiagnostics(h.host, diagnostics, h.workspace);
  const call = async (name: string, args: Record<string, unknown>) => {
    const validated = await tools.validate(name, args);
    if (!validated.ok) throw new Error(validated.error.join("\n"));
    return (await tools.run(name, validated.value, { state: {} })).result;
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
