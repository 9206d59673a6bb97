// A result cut at tool_output_limit names the file holding the full output; read_file must
// be able to open that file in the sandbox (it lies in harness's data folder, outside the
// workspace), with only the workspace granted.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox } from "../helpers/run_cli.ts";

Deno.test({
  name: "read_file opens the saved full output that a cut run_command result names",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sandbox = await cliSandbox();
    const run = await sandbox.run([
      "--allow-read=.",
      "--allow-run",
      "tool",
      "run_command",
      '{"command": "seq 1 20000"}',
    ]);
    assertEquals(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    const path: string = result.metadata.truncated.full_output_path;
    assert(path.startsWith(sandbox.env.XDG_DATA_HOME!), path);
    assert(result.data.includes(`saved to "${path}": read_file it`), result.data.slice(0, 200));

    const read = await sandbox.run([
      "--allow-read=.",
      "tool",
      "read_file",
      JSON.stringify({ path, offset: 19999, limit: 2 }),
    ]);
    assertEquals(read.code, 0, read.stderr);
    assertEquals(JSON.parse(read.stdout).data.split("\n").slice(0, 2), [
      "19999: 19999",
      "20000: 20000",
    ]);

    // Other absolute paths stay refused.
    const other = await sandbox.run([
      "--allow-read",
      "tool",
      "read_file",
      JSON.stringify({ path: `${sandbox.env.XDG_DATA_HOME}/../x` }),
    ]);
    assertEquals(JSON.parse(other.stdout).error_type, "validation_failed");
  },
});
