// The command sandbox against real bubblewrap and real processes: what a command the model
// chose can write, read, connect to and see in its environment. These tests need bwrap
// (`apt-get install bubblewrap`) and fail, not skip, without it.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import tool from "../../../plugins/run_command.ts";
import {
  type CommandSandbox,
  type CommandSandboxMode,
} from "../../../src/sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../../../src/sandbox/commands/command_sandbox_probe.ts";
import { CommandLauncher } from "../../../src/sandbox/commands/command_sandbox_launcher.ts";
import { emptyGrants } from "../../../src/sandbox/grants/grants.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import { expectToolError, makeToolContext, runTool } from "../../helpers/tool_context.ts";
import type { ToolContext } from "../../../src/tools/define_tool.ts";

const linux = Deno.build.os === "linux";

/** A run_command context whose commands run as harness would with `flags`. */
async function commandContext(
  flags: (dirs: { workspace: string; outside: string }) => string[],
  options: { mode?: CommandSandboxMode; env?: Record<string, string>; bwrap?: string } = {},
) {
  const ctx = await makeToolContext();
  const parsed = parseGrantFlags(flags(ctx), { cwd: ctx.workspace });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  const sandbox = await probeCommandSandbox(options.mode ?? "required", {
    grants: parsed.value.grants,
    env: options.env ?? Deno.env.toObject(),
    ...(options.bwrap ? { bwrap: options.bwrap } : {}),
  });
  const commands = new CommandLauncher(sandbox, {
    grants: parsed.value.grants,
    workspace: ctx.workspace,
  });
  const run: ToolContext = ctx.withCommands(commands);
  return Object.assign(ctx, { run, sandbox });
}

const WORKSPACE_FLAGS = ({ workspace }: { workspace: string }) => [
  `--allow-read=${workspace}`,
  `--allow-write=${workspace}`,
  "--allow-run",
];

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "probeCommandSandbox() finds a working bubblewrap on this machine",
  ignore: !linux,
  fn: async () => {
    const sandbox: CommandSandbox = await probeCommandSandbox("required", {
      grants: emptyGrants(),
      env: Deno.env.toObject(),
    });
    assertEquals(
      sandbox.confinement.kind,
      "bwrap",
      `bubblewrap must be installed and work here (apt-get install bubblewrap): ${
        JSON.stringify(sandbox.confinement)
      }`,
    );
  },
});

Deno.test({
  name: "run_command writes inside the workspace but not outside it, and says which flag",
  ignore: !linux,
  fn: async () => {
    await using ctx = await commandContext(WORKSPACE_FLAGS);
    const inside = await runTool(tool, { command: "echo in > in.txt && cat in.txt" }, ctx.run);
    assert(inside.output.startsWith("in\n"), inside.output);
    const target = join(ctx.outside, "pwned.txt");
    const { output } = await runTool(tool, { command: `echo x > ${target}` }, ctx.run);
    assert(!output.endsWith("exit_code: 0"), output);
    assert(!await exists(target), "the write outside the workspace went through");
    // A system folder is visible but read-only.
    const etc = await runTool(tool, { command: "touch /etc/harness_pwned" }, ctx.run);
    assert(etc.output.includes("Read-only file system"), etc.output);
    assert(etc.output.includes("restart harness with --allow-write=/etc"), etc.output);
    assert(!await exists("/etc/harness_pwned"));
  },
});

Deno.test({
  name: "run_command cannot read or write outside through a symbolic link in the workspace",
  ignore: !linux,
  fn: async () => {
    await using ctx = await commandContext(WORKSPACE_FLAGS);
    await Deno.writeTextFile(join(ctx.outside, "secret.txt"), "top secret\n");
    await Deno.symlink(ctx.outside, join(ctx.workspace, "escape"));
    const read = await runTool(tool, { command: "cat escape/secret.txt" }, ctx.run);
    assert(!read.output.includes("top secret"), read.output);
    assert(read.output.includes("--allow-read="), read.output);
    await runTool(tool, { command: "echo x > escape/new.txt; ln -sf /etc/passwd p" }, ctx.run);
    assert(!await exists(join(ctx.outside, "new.txt")));
  },
});

Deno.test({
  name: "run_command cannot read a file --deny-read names, even with -R",
  ignore: !linux,
  fn: async () => {
    await using ctx = await commandContext(({ workspace }) => [
      "-R",
      `--allow-write=${workspace}`,
      "--allow-run",
      `--deny-read=${workspace}/.env`,
    ]);
    await Deno.writeTextFile(join(ctx.workspace, ".env"), "KEY=top secret\n");
    const { output } = await runTool(tool, { command: "cat .env; cat ./.env" }, ctx.run);
    assert(!output.includes("top secret"), output);
  },
});

Deno.test({
  name: "run_command cannot remount a read-only folder writable, even when harness runs as root",
  ignore: !linux,
  fn: async () => {
    await using ctx = await commandContext(WORKSPACE_FLAGS);
    const marker = `/etc/harness_remount_${crypto.randomUUID()}`;
    try {
      const { output } = await runTool(tool, {
        command: `mount -o remount,rw,bind /etc; touch ${marker}; ` +
          `unshare -Urm sh -c 'mount -o remount,rw,bind /etc; touch ${marker}'`,
      }, ctx.run);
      assert(!await exists(marker), `a command wrote ${marker}: ${output}`);
    } finally {
      await Deno.remove(marker).catch(() => {});
    }
  },
});

Deno.test({
  name: "run_command cannot connect to a daemon's Unix socket under /run, even with -R",
  ignore: !linux,
  fn: async () => {
    const path = `/run/harness_test_${crypto.randomUUID()}.sock`;
    let hits = 0;
    const server = Deno.serve({ path, onListen: () => {} }, () => {
      hits++;
      return new Response("daemon answered\n");
    });
    try {
      await using ctx = await commandContext((d) => ["-R", ...WORKSPACE_FLAGS(d).slice(1)]);
      const { output } = await runTool(
        tool,
        { command: `curl -sS --max-time 5 --unix-socket ${path} http://daemon/` },
        ctx.run,
      );
      assert(!output.includes("daemon answered"), output);
      assertEquals(hits, 0);
    } finally {
      await server.shutdown();
      await Deno.remove(path).catch(() => {});
    }
  },
});

Deno.test({
  name: "run_command cannot reach the host's files through /proc/self/root or /proc/1/root",
  ignore: !linux,
  fn: async () => {
    await using ctx = await commandContext(WORKSPACE_FLAGS);
    await Deno.writeTextFile(join(ctx.outside, "secret.txt"), "top secret\n");
    for (const root of ["/proc/self/root", "/proc/1/root", `/proc/${Deno.pid}/root`]) {
      const { output } = await runTool(tool, {
        command: `cat ${root}${ctx.outside}/secret.txt; echo x > ${root}${ctx.outside}/w.txt`,
      }, ctx.run);
      assert(!output.includes("top secret"), `${root}: ${output}`);
      assert(!await exists(join(ctx.outside, "w.txt")), root);
    }
    // harness's own process is not even visible: a new PID namespace.
    const ps = await runTool(tool, { command: `ls /proc | grep -c '^[0-9]'` }, ctx.run);
    assert(Number(ps.output.split("\n")[0]) < 10, ps.output);
  },
});

/** A loopback HTTP server counting its requests. */
function loopbackServer() {
  let hits = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => {
      hits++;
      return new Response("hello from the host\n");
    },
  );
  return {
    port: server.addr.port,
    get hits() {
      return hits;
    },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test({
  name: "run_command has no network without --allow-net and says so; with it, it connects",
  ignore: !linux,
  fn: async () => {
    await using server = loopbackServer();
    const command = `curl -sS --max-time 5 http://127.0.0.1:${server.port}/`;
    {
      await using ctx = await commandContext(WORKSPACE_FLAGS);
      const { output } = await runTool(tool, { command }, ctx.run);
      assert(!output.includes("hello from the host"), output);
      assert(output.includes("restart harness with --allow-net"), output);
      assertEquals(server.hits, 0);
    }
    {
      await using ctx = await commandContext((d) => [...WORKSPACE_FLAGS(d), "--allow-net"]);
      const { output } = await runTool(tool, { command }, ctx.run);
      assert(output.startsWith("hello from the host"), output);
      assertEquals(server.hits, 1);
    }
  },
});

Deno.test({
  name: "run_command gets a clean environment: never HARNESS_* or API keys",
  ignore: !linux,
  fn: async () => {
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: "/home/someone",
      LANG: "C.UTF-8",
      HARNESS_API_KEY: "harness-key",
      HARNESS_MODEL: "m",
      OPENAI_API_KEY: "openai-key",
      ANTHROPIC_API_KEY: "anthropic-key",
      AWS_SECRET_ACCESS_KEY: "aws",
      CARGO_HOME: "/cargo-home-not-passed",
    };
    {
      await using ctx = await commandContext(WORKSPACE_FLAGS, { env });
      const { output } = await runTool(tool, { command: "env | sort" }, ctx.run);
      const names = output.split("\n").filter((l) => l.includes("=")).map((l) => l.split("=")[0]);
      for (const name of ["PATH", "HOME", "LANG"]) assert(names.includes(name), output);
      for (
        const secret of ["harness-key", "openai-key", "anthropic-key", "aws", "/cargo-home-not"]
      ) {
        assert(!output.includes(secret), output);
      }
      assert(output.includes("TMPDIR=/tmp"), output);
      // Nor through /proc/PID/environ of harness: no process of the host is visible.
      const proc = await runTool(
        tool,
        { command: "cat /proc/[0-9]*/cmdline | tr '\\0' '\\n' | grep -c '[d]eno'" },
        ctx.run,
      );
      assert(proc.output.startsWith("0\n"), proc.output);
    }
    {
      // --allow-env passes what it names, but never harness's own settings or keys.
      await using ctx = await commandContext(
        (d) => [...WORKSPACE_FLAGS(d), "--allow-env=CARGO_*,HARNESS_API_KEY"],
        { env },
      );
      const { output } = await runTool(tool, { command: "env" }, ctx.run);
      assert(output.includes("CARGO_HOME=/cargo-home-not-passed"), output);
      assert(!output.includes("harness-key") && !output.includes("aws"), output);
    }
  },
});

Deno.test({
  name: 'run_command refuses to run unconfined in "required" mode when bwrap is missing',
  ignore: !linux,
  fn: async () => {
    const empty = await Deno.makeTempDir();
    try {
      await using ctx = await commandContext(WORKSPACE_FLAGS, {
        env: { PATH: empty, HOME: "/tmp" },
      });
      const message = await expectToolError(
        tool,
        { command: "touch ran.txt" },
        ctx.run,
        "permission_denied",
      );
      assert(message.includes("bubblewrap (bwrap) is not installed"), message);
      assert(message.includes("--command-sandbox=auto"), message);
      assert(!await exists(join(ctx.workspace, "ran.txt")));
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  },
});

Deno.test({
  name: "probeCommandSandbox() says in one line why a failing bwrap cannot confine commands",
  ignore: !linux,
  fn: async () => {
    // A bwrap that fails as it does where user namespaces are disabled.
    const dir = await Deno.makeTempDir();
    const fake = join(dir, "bwrap");
    await Deno.writeTextFile(
      fake,
      "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    );
    await Deno.chmod(fake, 0o755);
    try {
      await using required = await commandContext(WORKSPACE_FLAGS, { bwrap: fake });
      const { confinement } = required.sandbox;
      assert(confinement.kind === "none", JSON.stringify(confinement));
      assert(
        confinement.reason.includes("No permissions to create new namespace (exit 1)") &&
          !confinement.reason.includes("\n"),
        confinement.reason,
      );
      await expectToolError(tool, { command: "true" }, required.run, "permission_denied");

      // auto: the command runs unconfined, and the first result says so once.
      await using auto = await commandContext(WORKSPACE_FLAGS, { bwrap: fake, mode: "auto" });
      const first = await runTool(tool, { command: "echo one" }, auto.run);
      assert(first.output.includes("[warning: commands: unconfined"), first.output);
      const second = await runTool(tool, { command: "echo two" }, auto.run);
      assert(!second.output.includes("warning"), second.output);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "run_command explains that --allow-run with a list cannot bound a command line",
  ignore: !linux,
  fn: async () => {
    await using ctx = await commandContext(({ workspace }) => [
      `--allow-read=${workspace}`,
      "--allow-run=git,npm",
    ]);
    const message = await expectToolError(
      tool,
      { command: "git --version" },
      ctx.run,
      "permission_denied",
    );
    assert(message.includes("needs --allow-run, without a list of programs"), message);
  },
});
