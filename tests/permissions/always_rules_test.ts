import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { alwaysRule, fileLabel, saveAlwaysRule } from "../../src/permissions/always_rules.ts";
import { evaluatePolicy, type LoadedRule } from "../../src/permissions/policy.ts";
import { loadPolicyFiles } from "../../src/permissions/policy_file.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const WRITE = { tool: "write_file", args: { path: "src/a.ts" }, risk: "medium" as const };
const SUGGESTION = { tool: "write_file", match: { path: "src/**" }, action: "allow" as const };
const FILES = {
  user: "/u/p.jsonc",
  userLabel: "~/p.jsonc",
  project: "/w/.h/p.jsonc",
  workspace: "/w",
};

Deno.test("alwaysRule() goes to the user's file with absolute paths when only the default asked", () => {
  const policy = evaluatePolicy(WRITE, []);
  assertEquals(alwaysRule(policy, SUGGESTION, { rules: [], files: FILES }), {
    target: "/u/p.jsonc",
    rule: { ...SUGGESTION, match: { path: "/w/src/**" } },
  });
});

Deno.test("alwaysRule() goes after the latest asking rule's file, relative in the project's", () => {
  const rules: LoadedRule[] = [
    { tool: "write_file", action: "ask", file: "~/p.jsonc", index: 1 },
    { tool: "write_file", action: "ask", file: "/w/.h/p.jsonc", index: 1 },
  ];
  const policy = evaluatePolicy(WRITE, rules, { workspace: "/w" });
  assertEquals(alwaysRule(policy, SUGGESTION, { rules, files: FILES }), {
    target: "/w/.h/p.jsonc",
    rule: SUGGESTION,
  });
  // A rule saved this session names the user's file by its label: it is still the user's file.
  const user = evaluatePolicy(WRITE, rules.slice(0, 1), { workspace: "/w" });
  assertEquals(
    alwaysRule(user, SUGGESTION, { rules: rules.slice(0, 1), files: FILES }).target,
    "/u/p.jsonc",
  );
});

Deno.test("alwaysRule() offers no rule when an untrusted project rule asked or none fits", () => {
  const rules: LoadedRule[] = [
    { tool: "write_file", action: "ask", file: "/w/.h/p.jsonc", index: 1, untrusted: true },
  ];
  const policy = evaluatePolicy(WRITE, rules);
  assertEquals(alwaysRule(policy, SUGGESTION, { rules, files: FILES }).rule, undefined);
  assertEquals(
    alwaysRule(evaluatePolicy(WRITE, []), undefined, { rules: [], files: FILES }).rule,
    undefined,
  );
});

Deno.test("saveAlwaysRule() appends to the file and places the rule after that file's rules", async () => {
  await using dir = await tempDir();
  const user = join(dir.path, "user.jsonc");
  const project = join(dir.path, "project.jsonc");
  await Deno.writeTextFile(user, '{ "rules": [{ "tool": "ls", "action": "allow" }] }');
  await Deno.writeTextFile(project, '{ "rules": [{ "tool": "write_file", "action": "ask" }] }');
  const files = { user, userLabel: "~/user.jsonc" };
  const loaded = await loadPolicyFiles([{ path: user, required: true }, {
    path: project,
    required: true,
  }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  const rules = loaded.value.map((r) => r.file === user ? { ...r, file: "~/user.jsonc" } : r);
  const { index, saved } = await saveAlwaysRule(rules, { rule: SUGGESTION, target: user }, files);
  assertEquals([index, saved.ok], [2, true]);
  assertEquals(rules.map((r) => `${r.file}#${r.index}`), [
    "~/user.jsonc#1",
    "~/user.jsonc#2",
    `${project}#1`,
  ]);
  const again = await loadPolicyFiles([{ path: user, required: true }, {
    path: project,
    required: true,
  }]);
  if (!again.ok) throw new Error(JSON.stringify(again.error));
  assertEquals(again.value[1]?.match, SUGGESTION.match);
  assertEquals(fileLabel(files, user), "~/user.jsonc");
});

Deno.test("saveAlwaysRule() keeps the rule for the session when the file cannot be written", async () => {
  await using dir = await tempDir();
  const target = join(dir.path, "missing", "folder", "p.jsonc");
  await Deno.writeTextFile(join(dir.path, "missing"), "a file where a folder should be");
  const rules: LoadedRule[] = [];
  const files = { user: target, userLabel: target };
  const { index, saved } = await saveAlwaysRule(rules, { rule: SUGGESTION, target }, files);
  assertEquals([index, saved.ok, rules.length], [1, false, 1]);
});
