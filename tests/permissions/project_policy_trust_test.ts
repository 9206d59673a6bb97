import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  keepProjectPolicyTrusted,
  trustProjectPolicy,
} from "../../src/permissions/project_policy_trust.ts";
import type { LoadedRule } from "../../src/permissions/policy.ts";
import { appendRule } from "../../src/permissions/policy_file.ts";

function scripted(answers: (string | null)[]) {
  const written: string[] = [];
  return {
    written,
    io: {
      readLine: () => Promise.resolve(answers.shift() ?? null),
      write: (text: string) => void written.push(text),
    },
  };
}

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "harness_policy_trust_" });
  const projectFile = join(dir, ".harness", "policies.jsonc");
  await Deno.mkdir(join(dir, ".harness"));
  await Deno.writeTextFile(projectFile, '{ "rules": [ { "tool": "*", "action": "allow" } ] }');
  const rules: LoadedRule[] = [
    { tool: "read_file", action: "allow", file: join(dir, "user.jsonc"), index: 1 },
    { tool: "*", action: "allow", file: projectFile, index: 1 },
    { tool: "run_command", action: "deny", file: projectFile, index: 2 },
  ];
  return {
    dir,
    projectFile,
    rules,
    storeFile: join(dir, "trusted.json"),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("trustProjectPolicy() turns an untrusted project file's allow rules into ask rules", async () => {
  await using t = await setup();
  const { io, written } = scripted([]);
  const result = await trustProjectPolicy(t.rules, { ...t, io, interactive: false });
  assertEquals(result.trusted, false);
  assertEquals(result.rules.map((r) => r.action), ["allow", "ask", "deny"]);
  match(written.join(""), /Asking instead of allowing for 1 untrusted project policy file/);
  match(written.join(""), /start harness in this folder without -p/);
});

Deno.test("trustProjectPolicy() asks once in the REPL and remembers the answer per content", async () => {
  await using t = await setup();
  const yes = scripted(["y"]);
  const first = await trustProjectPolicy(t.rules, { ...t, io: yes.io, interactive: true });
  assertEquals(first.rules.map((r) => r.action), ["allow", "allow", "deny"]);
  match(yes.written.join(""), /calls they match would run without asking/);
  const later = scripted([]);
  const second = await trustProjectPolicy(t.rules, { ...t, io: later.io, interactive: false });
  assertEquals([second.trusted, later.written], [true, []]);

  // Changed content is asked about again; a "no" sticks for that content.
  await Deno.writeTextFile(t.projectFile, '{ "rules": [] } // changed');
  const no = scripted(["n"]);
  const third = await trustProjectPolicy(t.rules, { ...t, io: no.io, interactive: true });
  assertEquals(third.rules.map((r) => r.action), ["allow", "ask", "deny"]);
  const again = scripted([]);
  await trustProjectPolicy(t.rules, { ...t, io: again.io, interactive: true });
  match(again.written.join(""), /you declined to trust it/);
});

Deno.test("keepProjectPolicyTrusted() keeps a trusted file trusted after harness saves a rule", async () => {
  await using t = await setup();
  await trustProjectPolicy(t.rules, { ...t, io: scripted(["y"]).io, interactive: true });
  // The rule "Always" saves, with the file's content before and after (trust carries over
  // only from the content the user trusted: project_trust_places_attack_test.ts).
  const saved = await appendRule(t.projectFile, { tool: "ls", action: "allow" });
  assert(saved.ok);
  await keepProjectPolicyTrusted(t.projectFile, {
    ...t,
    trusted: true,
    io: scripted([]).io,
    ...saved.value.hashes,
  });
  const after = await trustProjectPolicy(t.rules, {
    ...t,
    io: scripted([]).io,
    interactive: false,
  });
  assert(after.trusted);
  // An untrusted file stays untrusted.
  await Deno.writeTextFile(t.projectFile, "// another", { append: true });
  await keepProjectPolicyTrusted(t.projectFile, { ...t, trusted: false, io: scripted([]).io });
  const still = await trustProjectPolicy(t.rules, {
    ...t,
    io: scripted([]).io,
    interactive: false,
  });
  assertEquals(still.trusted, false);
});

Deno.test("trustProjectPolicy() marks an untrusted file's ask and deny rules untrusted without asking", async () => {
  await using t = await setup();
  await Deno.writeTextFile(t.projectFile, '{ "rules": [ { "tool": "*", "action": "ask" } ] }');
  const rules: LoadedRule[] = [
    { tool: "run_command", action: "deny", file: join(t.dir, "user.jsonc"), index: 1 },
    { tool: "*", action: "ask", file: t.projectFile, index: 1 },
  ];
  const { io, written } = scripted([]);
  const result = await trustProjectPolicy(rules, { ...t, io, interactive: true });
  assertEquals(result.trusted, false);
  assertEquals(result.rules.map((r) => [r.action, r.untrusted ?? false]), [
    ["deny", false],
    ["ask", true],
  ]);
  assertEquals(written, []);
});

Deno.test("trustProjectPolicy() attack: a .harness linked from another folder keeps its allow rules asking", async () => {
  await using s = await setup();
  const answered = scripted(["y"]);
  const options = { projectFile: s.projectFile, interactive: true, storeFile: s.storeFile };
  const trusted = await trustProjectPolicy(s.rules, { ...options, io: answered.io, cwd: s.dir });
  assertEquals(trusted.trusted, true);
  // Another folder borrows the trusted .harness through a link: its rules stay strict-only.
  const other = `${s.dir}_other`;
  await Deno.mkdir(other);
  try {
    await Deno.symlink(join(s.dir, ".harness"), join(other, ".harness"));
    const file = join(other, ".harness", "policies.jsonc");
    const rules = s.rules.map((rule) => rule.file === s.projectFile ? { ...rule, file } : rule);
    const borrowed = scripted([]);
    const result = await trustProjectPolicy(rules, {
      ...options,
      projectFile: file,
      io: borrowed.io,
      cwd: other,
    });
    assertEquals(result.trusted, false);
    assertEquals(result.rules.map((r) => r.action), ["allow", "ask", "deny"]);
    match(borrowed.written.join(""), /leads out of the workspace/);
  } finally {
    await Deno.remove(other, { recursive: true });
  }
});
