// Attacks with object keys that JavaScript objects inherit or treat specially (`constructor`,
// `toString`, `__proto__`): in a project or user config, in a policy file and in a model's
// tool-call arguments. None may crash harness with a TypeError or change what an object
// inherits; config keys get a clear config error (issue 26, item 15).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { loadSettings, parseConfigText } from "../../src/config/settings.ts";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import { parsePolicyText } from "../../src/permissions/policy_text.ts";
import { repairArguments } from "../../src/agent/repair_arguments.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const INHERITED = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"];

for (const key of INHERITED) {
  Deno.test(`parseConfigText() refuses a setting named "${key}" with a config error`, async () => {
    const r = await parseConfigText("c.jsonc", `{ "${key}": { "model": "x" } }`);
    assert(!r.ok, JSON.stringify(r));
    assert(
      r.error.kind === "config_invalid" && r.error.reason.startsWith(`unknown setting "${key}"`),
      JSON.stringify(r.error),
    );
  });
}

Deno.test("loadSettings() reports a project config key named constructor, no TypeError", async () => {
  await using dir = await tempDir();
  const cwd = join(dir.path, "work");
  await Deno.mkdir(join(cwd, ".harness"), { recursive: true });
  await Deno.writeTextFile(join(cwd, ".harness", "config.jsonc"), '{ "constructor": 1 }');
  const env: Record<string, string> = { XDG_CONFIG_HOME: join(dir.path, "cfg") };
  const r = await loadSettings({}, { cwd, env: (name) => env[name] });
  assert(!r.ok);
  assert(r.error.kind === "config_invalid" && r.error.reason.includes('"constructor"'));
});

Deno.test("parseConfigText() does not let __proto__ give a setting inherited values", async () => {
  const r = await parseConfigText(
    "c.jsonc",
    '{ "tool_timeouts": { "__proto__": { "run_command": 1 } } }',
  );
  // Either refused, or kept as an own key: never a timeout every lookup inherits.
  if (r.ok) {
    const timeouts = r.value.toolTimeouts ?? {};
    assertEquals(Object.getPrototypeOf(timeouts), Object.prototype);
    assertEquals((timeouts as Record<string, unknown>).run_command, undefined);
  }
  assert(!r.ok, "a timeout map whose value is an object is not valid");
});

Deno.test("parseConfigText() keeps a tool named constructor as an own timeout key", async () => {
  const r = await parseConfigText("c.jsonc", '{ "tool_timeouts": { "constructor": 5 } }');
  assert(r.ok, JSON.stringify(r));
  assertEquals(Object.keys(r.value.toolTimeouts ?? {}), ["constructor"]);
});

Deno.test("parseConfigText() keeps an MCP server named __proto__ as a server, not a prototype", async () => {
  const r = await parseConfigText(
    "c.jsonc",
    '{ "mcp_servers": { "__proto__": { "command": "srv" } } }',
  );
  if (r.ok) {
    const servers = r.value.mcpServers ?? {};
    assertEquals(Object.getPrototypeOf(servers), Object.prototype);
    assert(Object.hasOwn(servers, "__proto__"));
  }
});

Deno.test("parsePolicyText() keeps a match key __proto__: the allow rule does not lose its condition", () => {
  const r = parsePolicyText(
    "p.jsonc",
    '{ "rules": [ { "tool": "run_command", "match": { "__proto__": "git *" }, "action": "allow" } ] }',
  );
  assert(r.ok, JSON.stringify(r));
  const decision = evaluatePolicy(
    { tool: "run_command", args: { command: "rm -rf /" }, risk: "high" },
    r.value,
  );
  assertEquals(decision.action, "ask");
});

for (const key of ["constructor", "toString", "hasOwnProperty"]) {
  Deno.test(`evaluatePolicy() does not read an inherited "${key}" as an argument`, () => {
    const rules = [{
      tool: "*",
      match: { [key]: "*" },
      action: "allow" as const,
      file: "p",
      index: 1,
    }];
    const d = evaluatePolicy({ tool: "write_file", args: { path: "a" }, risk: "high" }, rules);
    assertEquals(d.action, "ask");
  });
}

Deno.test("repairArguments() keeps a model's __proto__ key as data, never as the prototype", () => {
  const schema = { type: "object", properties: { path: { type: "string" } } };
  const r = repairArguments('{"__proto__": {"path": "/etc/shadow"}, "constructor": 1}', schema);
  assert("value" in r, JSON.stringify(r));
  const value = r.value as Record<string, unknown>;
  assertEquals(Object.getPrototypeOf(value), Object.prototype);
  assertEquals(value.path, undefined);
  assert(Object.hasOwn(value, "constructor"));
});

Deno.test("toolKind() gives a plugin named constructor the kind other", async () => {
  const { toolKind } = await import("../../src/acp/tool_updates.ts");
  assertEquals(toolKind("constructor"), "other");
});

Deno.test("parseConfigText() refuses a config nested 100,000 deep with a config error", async () => {
  const deep = `{ "model": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`;
  const r = await parseConfigText("c.jsonc", deep);
  assert(!r.ok && r.error.kind === "config_invalid", JSON.stringify(r).slice(0, 200));
  assert(r.error.reason.includes("nest more than 64 levels"), r.error.reason);
});

Deno.test("parsePolicyText() refuses a policy file nested 100,000 deep with a config error", () => {
  const deep = `{ "rules": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`;
  const r = parsePolicyText("p.jsonc", deep);
  assert(!r.ok && r.error.reason.includes("nest more than 64 levels"), JSON.stringify(r));
});
