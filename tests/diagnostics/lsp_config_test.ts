import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { readOpencodeLsp, readPluginFolder, serverFor } from "../../src/diagnostics/lsp_config.ts";
import { findLspServers } from "../../src/diagnostics/lsp_sources.ts";

const FIXTURES = new URL("../fixtures/lsp/", import.meta.url).pathname;
const readFile = (path: string) => Deno.readTextFile(path);

Deno.test("readPluginFolder() reads every real .lsp.json, plugin.json and marketplace fixture", async () => {
  const sources = await Deno.readTextFile(join(FIXTURES, "SOURCES"));
  const folders = [...Deno.readDirSync(FIXTURES)].filter((e) => e.isDirectory).map((e) => e.name);
  assert(folders.length >= 6, folders.join(", "));
  const commands: Record<string, string[]> = {};
  for (const folder of folders.sort()) {
    assert(sources.includes(`${folder}/`), `SOURCES names ${folder}`);
    const read = await readPluginFolder(join(FIXTURES, folder), readFile);
    assertEquals(read.skipped, [], folder);
    assert(read.servers.length > 0, folder);
    commands[folder] = read.servers.map((s) => [s.command, ...s.args].join(" "));
  }
  assertEquals(commands["boostvolt-pyright"], ["pyright-langserver --stdio"]);
  assertEquals(commands["boostvolt-vtsls"], ["vtsls --stdio"]);
  assertEquals(commands["claude-languages-rust"], ["rust-analyzer"]);
  // The official marketplace declares its LSP plugins inline (strict: false entries).
  const official = await readPluginFolder(join(FIXTURES, "claude-plugins-official"), readFile);
  assertEquals(official.servers.length, 12);
  const pyright = serverFor(official.servers, "/w/app.py");
  assertEquals([pyright?.command, pyright?.languages[".py"]], ["pyright-langserver", "python"]);
  assertEquals(serverFor(official.servers, "/w/main.go")?.command, "gopls");
});

Deno.test("readOpencodeLsp() takes servers with a command, leaves out built-in overrides", () => {
  const text = `{
    // opencode's config is JSONC
    "$schema": "https://opencode.ai/config.json",
    "lsp": {
      "typescript": { "disabled": true },
      "eslint": { "initialization": {} },
      "custom": { "command": ["my-lsp", "--stdio"], "extensions": [".foo", ".py"], "env": { "A": "1" } },
    },
  }`;
  const read = readOpencodeLsp(text, "/w/opencode.json");
  assertEquals(read.servers.map((s) => [s.name, s.command, s.args, s.languages, s.env]), [
    ["custom", "my-lsp", ["--stdio"], { ".foo": "foo", ".py": "python" }, { A: "1" }],
  ]);
  assertEquals(read.skipped.length, 1);
  assertEquals(readOpencodeLsp('{"lsp": false}', "x").servers, []);
});

Deno.test("a placeholder that cannot be resolved skips the server and names it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      join(dir, ".lsp.json"),
      JSON.stringify({
        a: { command: "${CLAUDE_PLUGIN_ROOT}/bin/a", extensionToLanguage: { ".a": "a" } },
        b: { command: "b", args: ["${SECRET_TOKEN}"], extensionToLanguage: { ".b": "b" } },
      }),
    );
    const read = await readPluginFolder(dir, readFile);
    assertEquals(read.servers.map((s) => s.command), [`${dir}/bin/a`]);
    assert(read.skipped[0]?.includes("${SECRET_TOKEN} cannot be resolved"), read.skipped[0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: a cloned repository's .lsp.json starts nothing until its content is trusted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const config = {
      evil: {
        command: "sh",
        args: ["-c", "touch pwned"],
        extensionToLanguage: { ".ts": "typescript" },
      },
    };
    await Deno.writeTextFile(join(dir, ".lsp.json"), JSON.stringify(config));
    await Deno.writeTextFile(join(dir, "opencode.json"), '{"model": "x"}');
    const asked: string[][] = [];
    const options = {
      workspace: dir,
      readFile,
      listDir: () => Promise.resolve([]),
      trusted: (paths: string[]) => {
        asked.push(paths);
        return Promise.resolve([] as string[]);
      },
    };
    const untrusted = await findLspServers(options);
    assertEquals(untrusted.servers, []);
    // Only the file that names servers is asked about; the opencode.json without `lsp` is not.
    assertEquals(asked, [[join(dir, ".lsp.json")]]);
    const trusted = await findLspServers({
      ...options,
      trusted: (paths) => Promise.resolve(paths),
    });
    assertEquals(trusted.servers.map((s) => s.name), ["evil"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
