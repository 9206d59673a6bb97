// The release smoke test (scripts/smoke_release.ts) run as CI runs it, against `deno run
// main.ts`: every check passes; a build whose commands run unconfined, a wrong model-file
// expectation and a command that is not harness each fail with exit 1. The release workflow
// runs the same script against the compiled binaries.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeCommandSandbox } from "../../src/sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../../src/sandbox/commands/command_sandbox_probe.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import {
  installedVersion,
  NODE_LLAMA_CPP_VERSION,
} from "../../src/providers/llama_cpp/node_llama_cpp.ts";
import { NO_LLAMA_MESSAGE, WINDOWS_NOTICE } from "../../scripts/smoke_platform_checks.ts";
import { smokeReply } from "../../scripts/smoke_model_server.ts";
// Type-checks the script's whole graph (it runs below with `deno run`, which does not check).
import "../../scripts/smoke_release.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(ROOT, "scripts", "smoke_release.ts");
const MAIN = join(ROOT, "main.ts");
const DENO_RUN = [Deno.execPath(), "run", "-A", "--no-prompt", "--unstable-worker-options"];
const windows = Deno.build.os === "windows";
/** The run_command check's name here: confined on Linux and macOS, a notice on Windows. */
const RUN_COMMAND_CHECK = windows
  ? "run_command on Windows: unconfined, with the documented notice"
  : `run_command confined by ${Deno.build.os === "darwin" ? "sandbox-exec" : "bubblewrap"}`;
const llamaInstalled = await installedVersion() === NODE_LLAMA_CPP_VERSION;

interface SmokeOutput {
  code: number;
  lines: string[];
  stderr: string;
}

/** Runs `deno run -A scripts/smoke_release.ts OPTIONS -- COMMAND`. */
async function smoke(options: string[], command: string[]): Promise<SmokeOutput> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", SCRIPT, ...options, "--", ...command],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const stdout = decoder.decode(out.stdout);
  return {
    code: out.code,
    lines: stdout.trimEnd().split("\n"),
    stderr: decoder.decode(out.stderr),
  };
}

function checkLines(lines: string[]): string[] {
  return lines.filter((line) => line.startsWith("ok   ") || line.startsWith("FAIL "));
}

Deno.test({
  name: "smoke_release.ts passes every check against deno run main.ts and prints start-up times",
  async fn() {
    // On Linux confinement needs bubblewrap; CI installs it (.ci/install_system_packages).
    const out = await smoke([], [...DENO_RUN, MAIN]);
    const all = out.lines.join("\n");
    assertEquals(out.code, 0, `${all}\n${out.stderr}`);
    const checks = checkLines(out.lines);
    assertEquals(checks.length, 10, all);
    assert(checks.every((line) => line.startsWith("ok   ")), all);
    for (
      const part of [
        /^ok {3}--version: harness \d+\.\d+\.\d+/m,
        /^ok {3}start-up path \(the bundle\): ran from (the bundle|source)/m,
        /^ok {3}-p answers from the loopback model server: printed "pong"/m,
        /^ok {3}harness index .*\(4 parsed, 0 removed, 0 skipped\)/m,
        /^ok {3}MCP stdio server .* "echo: over stdio"/m,
        /^ok {3}plugin new: .* "Hello, Release!"/m,
        /^ok {3}plugin trust: .*skipped while untrusted; after trust -> "Hi, Release!"/m,
        /^ok {3}dropped \.ts plugin .* "7 words; most frequent: the \(3\)"/m,
        new RegExp(`^ok {3}${RUN_COMMAND_CHECK}: `, "m"),
        llamaInstalled
          ? /^ok {3}in-process model .*: answered "The notes say hello\." after read_file/m
          : /^ok {3}in-process model .*: this build reports: node-llama-cpp is not installed/m,
        /^start-up: --version \d+ ms \(\d+\.\dx\), -p answer \d+ ms \(\d+\.\dx\), harness tool \d+ ms \(\d+\.\dx\); medians of 5, 3 and 3 runs; reference: deno run of an empty script \d+ ms$/m,
      ]
    ) match(all, part);
    assertEquals(out.lines.at(-1), "10 passed, 0 failed");
    // `deno run` is not a file: no binary size.
    assert(!all.includes("binary size"), all);
  },
});

Deno.test({
  name: "smoke_release.ts fails run_command when harness lets commands write outside",
  ignore: windows,
  async fn() {
    const out = await smoke(
      ["--only", "run_command"],
      [...DENO_RUN, MAIN, "--command-sandbox=off"],
    );
    const all = out.lines.join("\n");
    assertEquals(out.code, 1, all);
    match(all, new RegExp(`^FAIL ${RUN_COMMAND_CHECK}: the command wrote outside`, "m"));
    assertEquals(out.lines.at(-1), "0 passed, 1 failed");
  },
});

Deno.test({
  name: "smoke_release.ts treats one file as a compiled binary: its size, and no in-process model",
  // The stand-in binary is a shell script.
  ignore: windows,
  async fn() {
    // A checkout without vendor/llama behind one executable file, as a compiled binary is
    // (neither embeds node-llama-cpp): the message the check expects is harness's own.
    const copy = await Deno.makeTempDir({ prefix: "harness_smoke_copy_" });
    try {
      for (const name of ["main.ts", "deno.json", "deno.lock"]) {
        await Deno.copyFile(join(ROOT, name), join(copy, name));
      }
      for (const dir of ["src", "plugins"]) {
        await cp(join(ROOT, dir), join(copy, dir), { recursive: true });
      }
      const binary = join(copy, "harness");
      const script = `#!/bin/sh\nexec ${DENO_RUN.map((arg) => `'${arg}'`).join(" ")} ` +
        `'${join(copy, "main.ts")}' "$@"\n`;
      await Deno.writeTextFile(binary, script, { mode: 0o755 });
      const out = await smoke(["--only", "in-process", "--only=--version"], [binary]);
      const all = out.lines.join("\n");
      assertEquals(out.code, 0, `${all}\n${out.stderr}`);
      match(all, /in-process model: message/);
      assert(all.includes(`binary size: 0.0 MiB (${script.length} bytes)`), all);
      assert(all.includes(`this build reports: ${NO_LLAMA_MESSAGE}`), all);
      assertEquals(out.lines.at(-1), "2 passed, 0 failed");
      // A binary embeds its bundle: one that starts from source fails the start-up path.
      const path = await smoke(["--only", "start-up path"], [binary]);
      assertEquals(path.code, 1, path.lines.join("\n"));
      match(
        path.lines.join("\n"),
        /^FAIL start-up path \(the bundle\): the binary ran from source/m,
      );
    } finally {
      await Deno.remove(copy, { recursive: true });
    }
  },
});

Deno.test({
  name: "smoke_release.ts fails the model check when a build that loads models expects the message",
  ignore: !llamaInstalled,
  async fn() {
    const out = await smoke(
      ["--only", "in-process", "--model-file", "message"],
      [...DENO_RUN, MAIN],
    );
    const all = out.lines.join("\n");
    assertEquals(out.code, 1, all);
    match(all, /^FAIL in-process model .*: expected exit 2 .*The notes say hello/m);
  },
});

Deno.test("smoke_release.ts fails every check of a command that is not harness, and exits 1", async () => {
  const out = await smoke([], [Deno.execPath(), "eval", "Deno.exit(3)"]);
  const all = out.lines.join("\n");
  assertEquals(out.code, 1, all);
  const checks = checkLines(out.lines);
  assertEquals(checks.length, 10, all);
  assert(checks.every((line) => line.startsWith("FAIL ") && line.includes("exit 3")), all);
  match(all, /^start-up: --version failed, -p answer failed, harness tool failed;/m);
  assertEquals(out.lines.at(-1), "0 passed, 10 failed");
});

Deno.test("smoke_release.ts refuses bad options with exit 2 and usage", async () => {
  const bad = await smoke(["--model-file", "maybe"], [...DENO_RUN, MAIN]);
  assertEquals(bad.code, 2);
  match(bad.stderr, /Invalid --model-file "maybe": use answer or message/);
  const none = await smoke(["--only", "no such check"], [...DENO_RUN, MAIN]);
  assertEquals(none.code, 2);
  match(none.stderr, /No check matches --only no such check/);
  const unknown = await smoke(["--verbose"], [...DENO_RUN, MAIN]);
  assertEquals(unknown.code, 2);
  match(unknown.stderr, /Unknown option '--verbose'[^]*Usage: /);
  assert(!unknown.stderr.includes("    at "), unknown.stderr);
});

Deno.test("the Windows notice the smoke test expects is the one harness prints there", async () => {
  const sandbox = await probeCommandSandbox("auto", {
    grants: emptyGrants(),
    env: {},
    os: "windows",
  });
  assertEquals(describeCommandSandbox(sandbox), WINDOWS_NOTICE);
});

Deno.test("the smoke model server calls only offered tools and answers tool results", () => {
  const ask = (content: string, tools: string[]) =>
    smokeReply({
      messages: [{ role: "user", content }],
      tools: tools.map((name) => ({ function: { name } })),
    });
  assertEquals(ask('call greet {"who": "A"}', ["greet"]), {
    kind: "call",
    name: "greet",
    argumentsJson: '{"who": "A"}',
  });
  assertEquals(ask('call greet {"who": "A"}', ["ls"]), {
    kind: "text",
    text: 'Tool "greet" was not offered (offered: ls)',
  });
  assertEquals(ask("hello", ["greet"]), { kind: "text", text: "pong" });
  assertEquals(
    smokeReply({ messages: [{ role: "tool", content: [{ type: "text", text: "42" }] }] }),
    { kind: "text", text: "Tool result: 42" },
  );
});
