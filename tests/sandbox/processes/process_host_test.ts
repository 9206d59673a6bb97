// Plugin workers never hold Deno's `run` permission (issue 26, item 3): a process is outside
// Deno's sandbox, so with `run` a plugin the model can rewrite would start programs with the
// user's rights and harness's environment. Programs start only through ctx.spawn, which the
// host runs in the command sandbox, only for programs the tool's run grant names.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost, type SandboxHostOptions } from "../../helpers/sandbox_host.ts";

const linux = Deno.build.os === "linux";

/** A host with only `plugins`, granted reading the workspace and starting programs. */
function pluginHost(plugins: Record<string, string>, files?: SandboxHostOptions["files"]) {
  return sandboxHost(
    ({ workspace }) => [`--allow-read=${workspace}`, "--allow-run"],
    { builtins: [], plugins, ...(files ? { files } : {}) },
  );
}

/** A factory-form plugin declaring `permissions` whose run returns what `body` returns. */
function plugin(name: string, permissions: string, body: string): string {
  return `export default ({ z, defineTool }) => defineTool({
  name: "${name}",
  description: "Fixture.",
  risk: "safe",
  parameters: z.object({ target: z.string().default("") }),
  permissions: ${permissions},
  async run({ target }, ctx) {
    ${body}
  },
});
`;
}

Deno.test({
  name: "a plugin that declares run cannot start a program with Deno.Command, only ctx.spawn",
  ignore: !linux,
  async fn() {
    await using s = await pluginHost({
      "raw_command.ts": plugin(
        "raw_command",
        '{ run: true, read: ["."] }',
        `new Deno.Command("sh", { args: ["-c", "echo pwned > " + target] }).outputSync();
  return { output: "ran" };`,
      ),
      "raw_kill.ts": plugin(
        "raw_kill",
        '{ run: true, read: ["."] }',
        `const child = ctx.spawn("sleep", { args: ["30"] });
  try { Deno.kill(child.pid, "SIGKILL"); return { output: "killed" }; }
  finally { child.kill("SIGKILL"); await child.status; }`,
      ),
    });
    assertEquals(s.errors, []);
    const target = join(s.outside, "pwned.txt");
    const raw = await s.call("raw_command", { target });
    assertEquals(raw.error_type, "permission_denied", JSON.stringify(raw));
    assert(String(raw.error_message).includes("ctx.spawn"), String(raw.error_message));
    await Deno.stat(target).then(() => assert(false, "Deno.Command ran unconfined"), () => {});
    const kill = await s.call("raw_kill", {});
    assertEquals(kill.error_type, "permission_denied", JSON.stringify(kill));
  },
});

Deno.test({
  name: "ctx.spawn starts only programs the tool's run list names, with piped or closed stdio",
  ignore: !linux,
  async fn() {
    await using s = await pluginHost({
      "only_cat.ts": plugin(
        "only_cat",
        '{ run: ["cat"], read: ["."] }',
        `if (target === "sh") ctx.spawn("sh", { args: ["-c", "true"] });
  if (target === "inherit") ctx.spawn("cat", { stdin: "inherit" });
  const out = await ctx.spawn("cat", { args: ["a.txt"] }).output();
  return { output: new TextDecoder().decode(out.stdout) };`,
      ),
    }, ({ workspace }) => ({ [join(workspace, "a.txt")]: "file-a\n" }));
    const cat = await s.call("only_cat", {});
    assertEquals(cat.data, "file-a\n", JSON.stringify(cat));
    const sh = await s.call("only_cat", { target: "sh" });
    assertEquals(sh.error_type, "permission_denied", JSON.stringify(sh));
    assert(String(sh.error_message).includes('"sh"'), String(sh.error_message));
    const inherit = await s.call("only_cat", { target: "inherit" });
    assert(!inherit.success, JSON.stringify(inherit));
    assert(String(inherit.error_message).includes("stdin"), String(inherit.error_message));
  },
});

Deno.test({
  name: "ctx.spawn pipes stdin through the host and hands over large output whole",
  ignore: !linux,
  async fn() {
    await using s = await pluginHost({
      "pipes.ts": plugin(
        "pipes",
        '{ run: ["cat", "sh"], read: ["."] }',
        `const cat = ctx.spawn("cat", { stdin: "piped" });
  const writer = cat.stdin.getWriter();
  await writer.write(new TextEncoder().encode("through stdin"));
  await writer.close();
  const echoed = await cat.output();
  const big = ctx.spawn("sh", { args: ["-c", "head -c 3000000 /dev/zero | tr '\\\\0' x; echo err >&2"] });
  const [out, err] = await Promise.all([big.stdout.bytes(), big.stderr.text()]);
  const status = await big.status;
  return { output: JSON.stringify({
    echoed: new TextDecoder().decode(echoed.stdout),
    bytes: out.length,
    xs: out.every((b) => b === 120),
    err,
    code: status.code,
  }) };`,
      ),
    });
    const result = await s.call("pipes", {});
    assertEquals(JSON.parse(String(result.data)), {
      echoed: "through stdin",
      bytes: 3_000_000,
      xs: true,
      err: "err\n",
      code: 0,
    }, JSON.stringify(result));
  },
});
