import { join } from "node:path";
import {
  appendRule,
  loadPolicyFiles,
  policyFileRefs,
  userPolicyFile,
} from "../../src/permissions/policy_file.ts";
import { parsePolicyText } from "../../src/permissions/policy_text.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import { formatAgentError } from "../../src/errors.ts";
import { tempDir } from "./temp_dir.ts";

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
  const text = formatAgentError(result.error);
  if (!text.startsWith(`Invalid config file "${file}": line 1, column 3: `)) throw new Error(text);
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
    ["edit_file", { path: "src/a.ts" }, "allow"],
    ["read_file", { path: "README.md" }, "allow"],
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
