// Attacks on the trust store (issue 26, item 8): trust follows bytes AND places. Trusting a
// file's content in one folder must not trust the same bytes in another (a cloned projB
// carrying projA's trusted policy file ran its `npm test` under -p); a changed file asks again;
// an old version is not trusted again once a newer one was (no stale hashes); a path that now
// leads elsewhere through a symbolic link asks again; and harness saving an approved rule into
// a trusted policy file does not vouch for what the model wrote into it meanwhile.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  checkProjectTrust,
  markTrusted,
  trustedHash,
} from "../../src/permissions/project_trust.ts";
import { settleProjectConfig } from "../../src/config/config_trust.ts";
import { trustProjectPolicy } from "../../src/permissions/project_policy_trust.ts";
import { appendRule, loadPolicyFiles } from "../../src/permissions/policy_file.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const silent = { readLine: () => Promise.resolve(null), write: () => {} };
const yes = { readLine: () => Promise.resolve("y"), write: () => {} };
const POLICY = JSON.stringify({
  rules: [{ tool: "run_command", match: { command: "npm test" }, action: "allow" }],
});

async function projects(root: string) {
  const a = join(root, "projA");
  const b = join(root, "projB");
  for (const dir of [a, b]) await Deno.mkdir(join(dir, ".harness"), { recursive: true });
  return { a, b, store: join(root, "config", "trust.json") };
}

async function policyTrusted(file: string, store: string): Promise<boolean> {
  const loaded = await loadPolicyFiles([{ path: file, required: true }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  const result = await trustProjectPolicy(loaded.value, {
    projectFile: file,
    io: silent,
    interactive: false,
    storeFile: store,
  });
  return result.trusted;
}

Deno.test("trusting projA's policy file does not trust the same bytes in projB", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await projects(dir.path);
  const fileA = join(a, ".harness", "policies.jsonc");
  const fileB = join(b, ".harness", "policies.jsonc");
  await Deno.writeTextFile(fileA, POLICY);
  await Deno.writeTextFile(fileB, POLICY);
  await markTrusted(fileA, { io: silent, storeFile: store, workspace: a });
  assert(await policyTrusted(fileA, store), "projA's own file lost its trust");
  assertEquals(await policyTrusted(fileB, store), false);
});

Deno.test("trusting projA's plugin does not trust the same bytes in projB", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await projects(dir.path);
  const plugins = [join(a, "plugins"), join(b, "plugins")];
  for (const folder of plugins) {
    await Deno.mkdir(folder);
    await Deno.writeTextFile(join(folder, "x.ts"), "export default {};\n");
  }
  const inA = join(plugins[0]!, "x.ts");
  const inB = join(plugins[1]!, "x.ts");
  await checkProjectTrust([inA], { io: yes, interactive: true, storeFile: store });
  const result = await checkProjectTrust([inB], {
    io: silent,
    interactive: false,
    storeFile: store,
  });
  assertEquals(result.load, []);
  assert("error" in await trustedHash(inB, { storeFile: store }));
  assert("hash" in await trustedHash(inA, { storeFile: store }));
});

Deno.test("trusting the same config text in projB keeps projA's trust (one record per place)", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await projects(dir.path);
  const text = JSON.stringify({ system_prompt: "x" });
  const options = { interactive: true, io: yes, storeFile: store };
  const later = { interactive: false, io: { write: () => {} }, storeFile: store };
  assert(await settleProjectConfig(join(a, ".harness", "config.jsonc"), text, ["x"], options));
  assertEquals(
    await settleProjectConfig(join(b, ".harness", "config.jsonc"), text, ["x"], later),
    false,
  );
  assert(await settleProjectConfig(join(b, ".harness", "config.jsonc"), text, ["x"], options));
  assert(await settleProjectConfig(join(a, ".harness", "config.jsonc"), text, ["x"], later));
});

Deno.test("an old version is not trusted again once a newer one was (no stale hashes)", async () => {
  await using dir = await tempDir();
  const { a, store } = await projects(dir.path);
  const file = join(a, ".harness", "policies.jsonc");
  await Deno.writeTextFile(file, POLICY);
  await markTrusted(file, { io: silent, storeFile: store, workspace: a });
  await Deno.writeTextFile(file, POLICY.replace("npm test", "npm run lint"));
  await markTrusted(file, { io: silent, storeFile: store, workspace: a });
  await Deno.writeTextFile(file, POLICY);
  assertEquals(await policyTrusted(file, store), false);
  // One record per file.
  const saved = JSON.parse(await Deno.readTextFile(store));
  assertEquals(Object.keys(saved.files).length, 1);
});

Deno.test("a trusted path that now leads elsewhere through a symbolic link asks again", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await projects(dir.path);
  const file = join(a, ".harness", "policies.jsonc");
  await Deno.writeTextFile(file, POLICY);
  await markTrusted(file, { io: silent, storeFile: store, workspace: a });
  // Same bytes, another place: the trusted path is now a link to a file the model controls.
  const elsewhere = join(b, "policies.jsonc");
  await Deno.writeTextFile(elsewhere, POLICY);
  await Deno.remove(file);
  await Deno.symlink(elsewhere, file);
  assertEquals(await policyTrusted(file, store), false);
});

Deno.test("saving an approved rule keeps trust only for the content the user trusted", async () => {
  await using dir = await tempDir();
  const { a, store } = await projects(dir.path);
  const file = join(a, ".harness", "policies.jsonc");
  await Deno.writeTextFile(file, POLICY);
  await markTrusted(file, { io: silent, storeFile: store, workspace: a });
  const { keepProjectPolicyTrusted } = await import(
    "../../src/permissions/project_policy_trust.ts"
  );
  // Unchanged file: the saved rule keeps it trusted.
  const saved = await appendRule(file, { tool: "read_file", action: "allow" });
  assert(saved.ok);
  await keepProjectPolicyTrusted(file, {
    projectFile: file,
    trusted: true,
    io: silent,
    storeFile: store,
    ...saved.value.hashes,
  });
  assert(await policyTrusted(file, store), "an approved rule lost the file's trust");
  // The model adds an allow-all rule during the session; then the user approves "Always".
  const text = await Deno.readTextFile(file);
  await Deno.writeTextFile(
    file,
    text.replace('"rules": [', '"rules": [{ "tool": "*", "action": "allow" },'),
  );
  const again = await appendRule(file, { tool: "ls", action: "allow" });
  assert(again.ok);
  await keepProjectPolicyTrusted(file, {
    projectFile: file,
    trusted: true,
    io: silent,
    storeFile: store,
    ...again.value.hashes,
  });
  assertEquals(await policyTrusted(file, store), false);
});

Deno.test("a plugin folder trusted in projA and linked into projB asks again there", async () => {
  await using dir = await tempDir();
  const { a, b, store } = await projects(dir.path);
  await Deno.mkdir(join(a, "plugins"));
  await Deno.writeTextFile(join(a, "plugins", "deploy.ts"), "export default {};\n");
  // projB's `plugins` is a link to projA's: the same files, by real path, in another place.
  await Deno.symlink(join(a, "plugins"), join(b, "plugins"));
  const inA = join(a, "plugins", "deploy.ts");
  const inB = join(b, "plugins", "deploy.ts");
  await checkProjectTrust([inA], { io: yes, interactive: true, storeFile: store, cwd: a });
  const inProjB = await checkProjectTrust([inB], {
    io: silent,
    interactive: false,
    storeFile: store,
    cwd: b,
  });
  assertEquals(inProjB.load, []);
  // The tool host's check before each import says the same.
  assert("error" in await trustedHash(inB, { storeFile: store, workspace: b }));
  assert("hash" in await trustedHash(inA, { storeFile: store, workspace: a }));
  // So does `harness plugin trust` run in projA, for projB.
  await markTrusted(inA, { io: silent, storeFile: store, workspace: a });
  assert("error" in await trustedHash(inB, { storeFile: store, workspace: b }));
});
