// harness's config folder holds what decides trust and what must stay secret: `api_key` in
// config.jsonc (with the MCP servers' tokens and the user's hooks), policies.jsonc and the trust
// store. Under `-R` a hostile model must not read any of it, through a command, a plugin's own
// node:fs or the file tools; the parts commands and plugins need (the user's skills and
// plugins) stay readable. As the data folder, it is hidden whatever the read grant.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const SECRET = "sk-CONFIG-SECRET-0042";
const linux = Deno.build.os === "linux";

interface CallResult {
  name: string;
  result: { success: boolean; data: string | null; error_message: string | null };
}

/** A config folder outside /tmp (commands see their own empty /tmp) holding every secret. */
async function configFolder(): Promise<{ xdg: string; dir: string } & AsyncDisposable> {
  const xdg = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "harness_config_" });
  const dir = join(xdg, "harness");
  await Deno.mkdir(join(dir, "skills", "notes"), { recursive: true });
  await Deno.writeTextFile(join(dir, "config.jsonc"), `{ "api_key": "${SECRET}" }\n`);
  await Deno.writeTextFile(join(dir, "policies.jsonc"), `{ "rules": [] } // ${SECRET}\n`);
  await Deno.writeTextFile(join(dir, "trust.json"), `{ "files": {}, "note": "${SECRET}" }\n`);
  await Deno.writeTextFile(
    join(dir, "skills", "notes", "SKILL.md"),
    "---\nname: notes\ndescription: Keep notes\n---\nRun scripts/x.sh\n",
  );
  return {
    xdg,
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(xdg, { recursive: true }),
  };
}

Deno.test({
  name: "harness -p -R --allow-run: a command cannot read harness's config folder, only its skills",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    await using config = await configFolder();
    const dir = config.dir;
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", {
        command: `ls -a ${dir}; cat ${dir}/skills/notes/SKILL.md; echo end; ` +
          `cat ${dir}/config.jsonc ${dir}/policies.jsonc ${dir}/trust.json`,
      }),
      reply().text("done"),
    ]);
    const out = await sandbox.run([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "-R",
      "--allow-write=.",
      "--allow-run",
      "-p",
      "go",
      "--output-format",
      "json",
    ], { env: { XDG_CONFIG_HOME: config.xdg } });
    assertEquals(out.code, 0, out.stderr);
    const calls = lastJsonLine(out.stdout).tool_calls as CallResult[];
    const shown = calls[0]!.result.data ?? "";
    assert(!shown.includes(SECRET), shown);
    assert(!shown.includes("config.jsonc") || shown.includes("No such file"), shown);
    // What a skill tells the model to read or run stays readable.
    assert(shown.includes("Run scripts/x.sh"), shown);
    assert(shown.includes("end"), shown);
    // The result says why the files are not there.
    assert(
      shown.includes(`[the command sandbox hides "${dir}/config.jsonc": harness's config`),
      shown,
    );
  },
});

Deno.test("harness -p -R: the file tools and a plugin cannot read harness's config folder", async () => {
  await using sandbox = await cliSandbox();
  // harness started in the home folder: its config folder is inside the workspace.
  const xdg = join(sandbox.cwd, "cfg");
  const dir = join(xdg, "harness");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "config.jsonc"), `{ "api_key": "${SECRET}" }\n`);
  await Deno.mkdir(join(sandbox.cwd, "tools"));
  await Deno.writeTextFile(
    join(sandbox.cwd, "tools", "peek.ts"),
    `import { readFileSync } from "node:fs";
export default ({ z, defineTool }) => defineTool({
  name: "peek", description: "Reads a file two ways.", risk: "low",
  parameters: z.object({ path: z.string() }),
  permissions: { read: true },
  run: ({ path }) => {
    const out = [];
    for (const read of [() => readFileSync(path, "utf8"), () => Deno.readTextFileSync(path)]) {
      try { out.push(read()); } catch (e) { out.push("refused: " + e.name); }
    }
    return { output: out.join(" | ") };
  },
});\n`,
  );
  await using server = startFakeLlmServer([
    reply().toolCall("peek", { path: join(dir, "config.jsonc") }),
    reply().toolCall("read_file", { path: "cfg/harness/config.jsonc" }),
    reply().toolCall("grep_search", { pattern: "api_key", path: "cfg", include_hidden: true }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "-R",
    "--plugins=tools",
    "-p",
    "go",
    "--output-format",
    "json",
  ], { env: { XDG_CONFIG_HOME: xdg } });
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as CallResult[];
  const shown = JSON.stringify(calls);
  assertEquals(calls[0]!.result.data, "refused: NotCapable | refused: NotCapable", shown);
  assertEquals(calls[1]!.result.success, false, shown);
  assert(!shown.includes(SECRET), shown);
  assert(!JSON.stringify(server.requests).includes(SECRET));
});
