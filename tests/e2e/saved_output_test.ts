// A result cut at tool_output_limit names the file holding the full output; read_file must
// be able to open that file in the sandbox (it lies in harness's data folder, outside the
// workspace), with only the workspace granted.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname } from "node:path";
import { cliSandbox, MAIN } from "../helpers/run_cli.ts";

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

Deno.test({
  name: "a command's 30 MB output is saved whole, and the result and metadata give its size",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sandbox = await cliSandbox();
    const bytes = 30_000_000;
    const run = await sandbox.run([
      "--allow-read=.",
      "--allow-run",
      "tool",
      "run_command",
      // 30 MB of numbered lines: the start, the middle and the end can be told apart.
      JSON.stringify({ command: `seq -w 1 3750000 | head -c ${bytes}` }),
    ]);
    assertEquals(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    const truncated = result.metadata.truncated;
    // All the command printed: the log holds its output as printed, without the exit line.
    assertEquals([truncated.output_bytes, truncated.saved_bytes], [bytes, bytes]);
    const saved = await Deno.readTextFile(truncated.full_output_path);
    assertEquals(truncated.saved_bytes, new TextEncoder().encode(saved).length);
    // Whole: every line, the middle included, with nothing cut.
    assert(saved.startsWith("0000001\n") && saved.includes("\n1875000\n"), saved.slice(0, 80));
    assert(!saved.includes("bytes of output cut here"), "the saved output was cut");
    assert(!result.data.includes("full output saved"), result.data.slice(0, 400));
    assert(result.data.includes("the whole output (28.6 MB) saved to"), result.data.slice(-600));
  },
});

Deno.test({
  name: "a command's output past the old 32 MiB is saved whole in its log, and named so",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sandbox = await cliSandbox();
    const bytes = 36 * 1024 * 1024;
    const run = await sandbox.run([
      "--allow-read=.",
      "--allow-run",
      "tool",
      "run_command",
      JSON.stringify({ command: `head -c ${bytes} /dev/zero | tr '\\0' x` }),
    ]);
    assertEquals(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    const truncated = result.metadata.truncated;
    // The job log keeps 256 MiB: this output is whole on disk, and the result says so. Past
    // the log's cap, "the first 256.0 MB of the ... output": tests/jobs/job_log_test.ts and
    // run_command_test.ts, with a smaller cap.
    assertEquals([truncated.output_bytes, truncated.saved_bytes], [bytes, bytes]);
    assertEquals(truncated.unit, "bytes");
    assert(truncated.cut > bytes - 30_000, String(truncated.cut));
    assert(result.data.includes("the whole output (36.0 MB) saved to"), result.data.slice(-600));
    assertEquals((await Deno.stat(truncated.full_output_path)).size, bytes);
  },
});

/** Runs the CLI with the sandbox's HOME and XDG folders in another working directory. */
async function runIn(
  cwd: string,
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", "--unstable-worker-options", MAIN, ...args],
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function modeOf(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

Deno.test({
  name: "a saved full output is readable only by its own workspace's sessions, owner-only",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sandbox = await cliSandbox();
    // The data folders exist already, readable by everyone: harness must close them.
    const data = `${sandbox.env.XDG_DATA_HOME}/harness`;
    await Deno.mkdir(`${data}/outputs`, { recursive: true, mode: 0o755 });
    await Deno.chmod(data, 0o755);
    await Deno.chmod(`${data}/outputs`, 0o755);
    const secret = "project A secret\n".repeat(4000);
    await Deno.writeTextFile(`${sandbox.cwd}/secret.txt`, secret);
    const saved = await sandbox.run([
      "--allow-read=.",
      "--allow-run",
      "tool",
      "run_command",
      '{"command": "cat secret.txt"}',
    ]);
    assertEquals(saved.code, 0, saved.stderr);
    const path: string = JSON.parse(saved.stdout).metadata.truncated.full_output_path;
    assert((await Deno.readTextFile(path)).includes(secret), path);
    assertEquals(modeOf(path), 0o600);
    for (let dir = dirname(path); dir.startsWith(`${data}/outputs/`); dir = dirname(dir)) {
      assertEquals(modeOf(dir), 0o700, dir);
    }

    // Workspace B, same user and data folder: the path A's result named is not B's to read.
    const other = `${sandbox.home}/project_b`;
    await Deno.mkdir(other);
    const read = await runIn(other, sandbox.env, [
      "--allow-read=.",
      "tool",
      "read_file",
      JSON.stringify({ path }),
    ]);
    const result = JSON.parse(read.stdout);
    assert(["validation_failed", "permission_denied"].includes(result.error_type), read.stdout);
    assert(!read.stdout.includes("project A secret"), read.stdout);

    // The session database and its folder are owner-only too.
    const list = await sandbox.run(["sessions", "list"]);
    assertEquals(list.code, 0, list.stderr);
    assertEquals(modeOf(data), 0o700);
    assertEquals(modeOf(`${data}/harness.db`), 0o600);
  },
});
