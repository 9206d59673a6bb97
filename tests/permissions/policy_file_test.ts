import { join } from "node:path";
import {
  appendRule,
  formatPolicyFileError,
  loadPolicyFiles,
  policyFileRefs,
  userPolicyFile,
} from "../../src/permissions/policy_file.ts";
import { parsePolicyText } from "../../src/permissions/policy_text.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import { formatAgentError } from "../../src/errors.ts";
import { tempDir } from "../helpers/temp_dir.ts";

async function expectError(text: string, reasonStart: string): Promise<void> {
  await using dir = await tempDir();
  const file = join(dir.path, "policies.jsonc");
  await Deno.writeTextFile(file, text);
  const result = await loadPolicyFiles([{ path: file, required: true }]);
  if (result.ok) throw new Error(`loaded ${JSON.stringify(text)}`);
  if (result.error.kind !== "config_invalid" || result.error.file !== file) {
    throw new Error(JSON.stringify(result.error));
  }
  if (!result.error.reason.startsWith(reasonStart)) {
    throw new Error(`reason ${JSON.stringify(result.error.reason)}, want ${reasonStart}`);
  }
}

Deno.test("loadPolicyFiles() reports a JSONC syntax error with line and column", async () => {
  await expectError(
    '{\n  "rules": [\n    { "tool": "x" "action": "allow" }\n  ]\n}',
    "line 3, column 19: ",
  );
});

Deno.test("loadPolicyFiles() rejects unknown rule fields at their position", async () => {
  await expectError(
    '{ "rules": [\n  { "tool": "x", "actoin": "allow" }\n] }',
    'line 2, column 18: unknown rule field "actoin"',
  );
});

Deno.test("loadPolicyFiles() rejects unknown actions and top-level fields", async () => {
  await expectError(
    '{ "rules": [ { "tool": "x", "action": "permit" } ] }',
    'line 1, column 39: unknown action "permit"',
  );
  await expectError('{ "rule": [] }', 'line 1, column 3: unknown field "rule"');
  await expectError(
    '{ "rules": [ { "action": "allow" } ] }',
    'line 1, column 14: rule has no "tool"',
  );
  await expectError('{ "rules": [ { "tool": "x" } ] }', 'line 1, column 14: rule has no "action"');
  await expectError(
    '{ "rules": [ { "tool": "x", "action": "allow", "match": { "path": 3 } } ] }',
    'line 1, column 67: "match.path" must be a glob',
  );
  await expectError("[]", "line 1, column 1: expected an object");
});

Deno.test("loadPolicyFiles() error prints in Deno style with the file name", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "p.jsonc");
  await Deno.writeTextFile(file, "{ oops }");
  const result = await loadPolicyFiles([{ path: file, required: false }]);
  if (result.ok) throw new Error("loaded");
  const text = formatPolicyFileError(result.error);
  if (!text.startsWith(`Invalid policy file "${file}": line 1, column 3: `)) throw new Error(text);
  if (!text.endsWith(": fix the file or move it away")) throw new Error(text);
});

Deno.test("parsePolicyText() describes syntax errors in words, not parser enum names", () => {
  const cases: [string, string][] = [
    [
      '{\n  "rules": [\n    { "tool": "x" }\n    { "tool": "y" }\n  ]\n}',
      "line 4, column 5: expected a comma",
    ],
    ['{ "rules": []', "expected a closing brace }"],
    ['{ "rules": [ { "tool": "x" }', "expected a closing bracket ]"],
    ['{ "rules" [] }', "expected a colon after the field name"],
    ['{ "rules": [ { "tool": "x } ] }', "a string is not closed with a double quote"],
    ["{ rules: [] }", "unexpected text (field names and strings need double quotes)"],
  ];
  for (const [text, expected] of cases) {
    const r = parsePolicyText("p.jsonc", text);
    if (r.ok) throw new Error(`parsed ${text}`);
    if (
      !r.error.reason.includes(expected) || /[A-Z][a-z]+Expected|Invalid[A-Z]/.test(r.error.reason)
    ) {
      throw new Error(`${JSON.stringify(text)}: ${r.error.reason}`);
    }
    if (!r.error.reason.endsWith(": fix the file or move it away")) throw new Error(r.error.reason);
  }
});

Deno.test("loadPolicyFiles() accepts a UTF-8 byte order mark and appendRule() keeps it", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "p.jsonc");
  await Deno.writeFile(
    file,
    new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('{ "rules": [ { "tool": "ls", "action": "allow" } ] }\n'),
    ]),
  );
  const loaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!loaded.ok || loaded.value[0]?.tool !== "ls") throw new Error(JSON.stringify(loaded));
  const saved = await appendRule(file, { tool: "glob", action: "allow" });
  if (!saved.ok || saved.value.index !== 2) throw new Error(JSON.stringify(saved));
  const bytes = await Deno.readFile(file);
  if (bytes[0] !== 0xef || bytes[3] !== "{".charCodeAt(0)) throw new Error("lost the BOM");
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok || reloaded.value.map((r) => r.tool).join() !== "ls,glob") {
    throw new Error(JSON.stringify(reloaded));
  }
});

Deno.test("loadPolicyFiles() skips missing optional files and fails on a missing required one", async () => {
  await using dir = await tempDir();
  const missing = join(dir.path, "none.jsonc");
  const optional = await loadPolicyFiles([{ path: missing, required: false }]);
  if (!optional.ok || optional.value.length !== 0) throw new Error("optional");
  const required = await loadPolicyFiles([{ path: missing, required: true }]);
  if (required.ok || !required.error.reason.includes("--policies")) throw new Error("required");
});

Deno.test("loadPolicyFiles() puts later files' rules later so they win", async () => {
  await using dir = await tempDir();
  const user = join(dir.path, "user.jsonc");
  const project = join(dir.path, "project.jsonc");
  await Deno.writeTextFile(user, '{ "rules": [ { "tool": "*", "action": "deny" } ] }');
  await Deno.writeTextFile(
    project,
    '// project\n{ "rules": [ { "tool": "read_file", "action": "allow", }, ], }',
  );
  const result = await loadPolicyFiles([
    { path: user, required: false },
    { path: project, required: false },
  ]);
  if (!result.ok) throw new Error(result.error.reason);
  const d = evaluatePolicy({ tool: "read_file", args: {}, risk: "medium" }, result.value);
  if (d.action !== "allow" || d.source !== `${project}#1`) throw new Error(d.source);
});

Deno.test("parsePolicyText() treats an empty or comment-only file as no rules", () => {
  for (const text of ["", "// nothing yet\n"]) {
    const r = parsePolicyText("p", text);
    if (!r.ok || r.value.length !== 0) throw new Error(JSON.stringify(text));
  }
});

Deno.test("appendRule() preserves comments and formatting and survives reload", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "policies.jsonc");
  const original = `// My rules: keep this comment
{
  /* block comment */
  "rules": [
    { "tool": "read_file", "action": "allow" }, // trailing comment
    {
      "tool": "write_file",
      "match": { "path": "**/.env*" },
      "action": "deny"
    } // last one
  ]
}
`;
  await Deno.writeTextFile(file, original);
  const saved = await appendRule(file, {
    tool: "run_command",
    match: { command: "git status *" },
    action: "allow",
  });
  if (!saved.ok || saved.value.index !== 3) throw new Error(JSON.stringify(saved));
  const text = await Deno.readTextFile(file);
  for (
    const kept of [
      "// My rules: keep this comment",
      "/* block comment */",
      '{ "tool": "read_file", "action": "allow" }, // trailing comment',
      '      "match": { "path": "**/.env*" },',
      "    }, // last one",
      '    {"tool": "run_command", "match": {"command": "git status *"}, "action": "allow"}\n  ]',
    ]
  ) {
    if (!text.includes(kept)) throw new Error(`lost ${JSON.stringify(kept)} in\n${text}`);
  }
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok || reloaded.value.length !== 3) throw new Error(text);
  const d = evaluatePolicy(
    { tool: "run_command", args: { command: "git status -s" }, risk: "high" },
    reloaded.value,
  );
  if (d.action !== "allow" || d.rule?.index !== 3) throw new Error(d.source);
});

Deno.test("appendRule() creates a missing file and folder with a header comment", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "config", "harness", "policies.jsonc");
  const first = await appendRule(file, { tool: "read_file", action: "allow" });
  const second = await appendRule(file, { tool: "list_files", action: "allow" });
  if (!first.ok || !second.ok || second.value.index !== 2) throw new Error("append failed");
  const text = await Deno.readTextFile(file);
  if (!text.startsWith("// harness permission rules")) throw new Error(text);
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok || reloaded.value.map((r) => r.tool).join() !== "read_file,list_files") {
    throw new Error(text);
  }
});

Deno.test("appendRule() handles a file without rules and one with a one-line list", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "p.jsonc");
  await Deno.writeTextFile(file, "// only a comment\n{}\n");
  if (!(await appendRule(file, { tool: "a", action: "allow" })).ok) throw new Error("no rules");
  await Deno.writeTextFile(file, '{ "rules": [ { "tool": "a", "action": "ask" } ] }');
  if (!(await appendRule(file, { tool: "b", action: "allow" })).ok) throw new Error("one line");
  const reloaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!reloaded.ok || reloaded.value.map((r) => r.tool).join() !== "a,b") {
    throw new Error(await Deno.readTextFile(file));
  }
});

Deno.test("appendRule() leaves a malformed file untouched and reports it", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "p.jsonc");
  await Deno.writeTextFile(file, "{ broken");
  const r = await appendRule(file, { tool: "a", action: "allow" });
  if (r.ok || r.error.kind !== "config_invalid") throw new Error("expected an error");
  if (await Deno.readTextFile(file) !== "{ broken") throw new Error("file changed");
});

Deno.test("policies.example.jsonc loads and decides as documented", async () => {
  const file = new URL("../../policies.example.jsonc", import.meta.url).pathname;
  const result = await loadPolicyFiles([{ path: file, required: true }]);
  if (!result.ok) throw new Error(formatAgentError(result.error));
  if (result.value.length < 8) throw new Error(`only ${result.value.length} rules`);
  const decide = (tool: string, args: Record<string, unknown>) =>
    evaluatePolicy({ tool, args, risk: "high" }, result.value).action;
  const checks: [string, Record<string, unknown>, string][] = [
    ["run_command", { command: "git status" }, "allow"],
    ["run_command", { command: "git status && sudo rm -rf /" }, "deny"],
    ["run_command", { command: "git push" }, "ask"],
    ["run_command", { command: "npm test" }, "allow"],
    ["run_command", { command: "npm test", cwd: "packages/web" }, "allow"],
    ["run_command", { command: "npm test", cwd: "../elsewhere" }, "ask"],
    ["write_file", { path: "./src/../.env" }, "deny"],
    // The deny rules come last, so the src/** allow does not reopen secrets.
    ["write_file", { path: "src/.env" }, "deny"],
    ["replace_lines", { path: "src/.env.local" }, "deny"],
    ["read_file", { path: "config/.env" }, "deny"],
    ["edit_file", { path: "src/a.ts" }, "allow"],
    ["replace_lines", { path: "src/a.ts" }, "allow"],
    ["insert_lines", { path: "tests/a_test.ts" }, "allow"],
    ["write_file", { path: "README.md" }, "ask"],
    ["read_file", { path: "README.md" }, "allow"],
    ["ls", { path: "." }, "allow"],
    ["get_file_tree", { path: "src" }, "allow"],
    ["glob", { pattern: "**/*.ts", path: "." }, "allow"],
    ["grep_search", { pattern: "TODO" }, "allow"],
    ["download_url", { url: "https://docs.deno.com/runtime/" }, "allow"],
    ["download_url", { url: "https://example.com/" }, "ask"],
    ["run_command", { command: "rm -rf build" }, "deny"],
    ["run_command", { command: "rm -fr x" }, "deny"],
    ["run_command", { command: "rm -Rf x" }, "deny"],
    ["run_command", { command: "rm -r x" }, "deny"],
    ["run_command", { command: "rm -R x" }, "deny"],
    ["run_command", { command: "rm --recursive x" }, "deny"],
    ["run_command", { command: "rm -f -r x" }, "deny"],
    ["run_command", { command: "rm x -rf" }, "deny"],
    ["run_command", { command: "git status && rm -fr x" }, "deny"],
    ["run_command", { command: "rm -f x" }, "ask"],
    ["run_command", { command: "rm --force x" }, "ask"],
    ["run_command", { command: "rm x" }, "ask"],
  ];
  for (const [tool, args, expected] of checks) {
    const actual = decide(tool, args);
    if (actual !== expected) throw new Error(`${tool} ${JSON.stringify(args)}: ${actual}`);
  }
});

Deno.test("userPolicyFile() and policyFileRefs() respect XDG_CONFIG_HOME and load order", () => {
  const env = (name: string) => ({ XDG_CONFIG_HOME: "/xdg", HOME: "/home/u" })[name];
  if (userPolicyFile(env) !== "/xdg/harness/policies.jsonc") throw new Error("xdg");
  const home = userPolicyFile((name) => name === "HOME" ? "/home/u" : undefined);
  if (home !== "/home/u/.config/harness/policies.jsonc") throw new Error(home);
  const refs = policyFileRefs({ cwd: "/p", extra: "/x.jsonc", env });
  const paths = refs.map((r) => `${r.path}:${r.required}`).join(" ");
  if (
    paths !== "/xdg/harness/policies.jsonc:false /p/.harness/policies.jsonc:false /x.jsonc:true"
  ) {
    throw new Error(paths);
  }
});
