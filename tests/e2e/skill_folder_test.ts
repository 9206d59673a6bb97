// Issue 42: `skill(name)` makes the skill's folder readable for the rest of the session, for
// the file tools and commands alike, through the one file gate, read-only. And the attacks on
// that door: a hostile skill folder whose links lead out (to a key), a folder that holds a
// --deny-read entry or harness's hidden config, a trusted project's skill linking to ~/.ssh.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { type RecordedMessage, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";

const FLAGS = ["--model", "m", "--yes", "--allow-read=.", "--allow-write=.", "--allow-run"];

/** A user skill `name` with `files` (path to text) in ~/.claude/skills; its real folder. */
async function userSkill(
  sandbox: CliSandbox,
  name: string,
  files: Record<string, string> = {},
): Promise<string> {
  const folder = join(sandbox.home, ".claude", "skills", name);
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    join(folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill\n---\nRead reference.md.\n`,
  );
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(folder, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(folder, path), text);
  }
  return await Deno.realPath(folder);
}

/** The results of the tool calls the last request carried, in order. */
function results(messages: readonly RecordedMessage[]): { success: boolean; text: string }[] {
  return messages.filter((m) => m.role === "tool").map((m) => {
    const result = JSON.parse(String(m.content));
    return { success: result.success, text: `${result.data ?? ""}${result.error_message ?? ""}` };
  });
}

Deno.test("skill(name) makes its folder readable for read_file, ls and commands, never writable", async () => {
  await using sandbox = await cliSandbox();
  const real = await userSkill(sandbox, "pdf", {
    "reference.md": "REF-CONTENT\n",
    "scripts/count.sh": "echo counted\n",
  });
  await using server = startFakeLlmServer([
    reply().toolCall("skill", { name: "pdf" }),
    reply().toolCall("read_file", { path: `${real}/reference.md` }),
    reply().toolCall("ls", { path: `${real}/scripts` }),
    reply().toolCall("run_command", {
      command: `cat '${real}/reference.md'; sh '${real}/scripts/count.sh'`,
    }),
    reply().toolCall("write_file", { path: `${real}/new.txt`, content: "x" }),
    reply().toolCall("run_command", { command: `touch '${real}/made.txt'` }),
    reply().text("done"),
  ]);
  const out = await sandbox.run(["-p", "use pdf", "--base-url", server.baseUrl, ...FLAGS]);
  assertEquals(out.code, 0, out.stderr);
  const [skill, read, listed, cat, write, touch] = results(server.requests.at(-1)!.messages);
  match(
    skill!.text,
    new RegExp(`Its folder "${real}" is readable for the rest of this session \\(read-only\\)`),
  );
  assert(read!.success && read!.text.includes("REF-CONTENT"), read!.text);
  assert(listed!.success && listed!.text.includes("count.sh"), listed!.text);
  assert(cat!.text.includes("REF-CONTENT") && cat!.text.includes("counted"), cat!.text);
  assert(!write!.success, write!.text);
  assert(!(await Deno.stat(`${real}/new.txt`).catch(() => false)), "write_file wrote nothing");
  assert(
    !(await Deno.stat(`${real}/made.txt`).catch(() => false)),
    `a command wrote: ${touch!.text}`,
  );
});

Deno.test("attack: a hostile skill folder's links out reach nothing, and the folder is not granted", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(join(sandbox.home, "secret"));
  await Deno.writeTextFile(join(sandbox.home, "secret", "id_rsa"), "SECRET-KEY\n");
  await Deno.writeTextFile(join(sandbox.home, "token.txt"), "SECRET-TOKEN\n");
  const real = await userSkill(sandbox, "evil", { "reference.md": "harmless\n" });
  await Deno.symlink(join(sandbox.home, "secret"), join(real, "keys"));
  await Deno.symlink(join(sandbox.home, "token.txt"), join(real, "token"));
  await using server = startFakeLlmServer([
    reply().toolCall("skill", { name: "evil" }),
    reply().toolCall("read_file", { path: `${real}/token` }),
    reply().toolCall("read_file", { path: `${real}/keys/id_rsa` }),
    reply().toolCall("run_command", { command: `cat '${real}/token' '${real}/keys/id_rsa'` }),
    reply().toolCall("skill", { name: "evil", file: "token" }),
    reply().text("done"),
  ]);
  const out = await sandbox.run(["-p", "use evil", "--base-url", server.baseUrl, ...FLAGS]);
  assertEquals(out.code, 0, out.stderr);
  const [skill, ...rest] = results(server.requests.at(-1)!.messages);
  match(skill!.text, /is not readable by path: ".*" links out of the folder/);
  for (const each of rest) {
    assert(!each.text.includes("SECRET"), JSON.stringify(each));
  }
  assert(!JSON.stringify(server.requests).includes("SECRET"), "no secret reached the model");
});

Deno.test("attack: a skill folder holding a --deny-read entry or harness's config is never granted", async () => {
  await using sandbox = await cliSandbox();
  // A skill folder holding a file the user denies.
  const dots = await userSkill(sandbox, "dots", { ".env": "SECRET-ENV\n", "notes.md": "NOTES\n" });
  // ~/.config holds a SKILL.md and harness's config folder (its API key, its trust store);
  // ~/.claude/skills/cfg links to it, inside the read grant given for it.
  const config = join(sandbox.home, ".config");
  await Deno.mkdir(join(config, "harness"), { recursive: true });
  await Deno.writeTextFile(join(config, "harness", "config.jsonc"), '{ "model": "SECRET-CFG" }');
  await Deno.writeTextFile(join(config, "SKILL.md"), "---\nname: cfg\ndescription: Cfg\n---\nx\n");
  await Deno.symlink(config, join(sandbox.home, ".claude", "skills", "cfg"));
  await using server = startFakeLlmServer([
    reply().toolCall("skill", { name: "dots" }).toolCall("skill", { name: "cfg" }),
    reply().toolCall("run_command", { command: `cat '${dots}/notes.md' '${dots}/.env'` })
      .toolCall("read_file", { path: `${dots}/notes.md` })
      .toolCall("read_file", { path: `${config}/SKILL.md` })
      .toolCall("run_command", { command: `cat '${config}/harness/config.jsonc'` }),
    reply().text("done"),
  ]);
  const out = await sandbox.run([
    "-p",
    "use them",
    "--base-url",
    server.baseUrl,
    ...FLAGS,
    `--allow-read=${config}`,
    `--deny-read=${dots}/.env`,
  ]);
  assertEquals(out.code, 0, out.stderr);
  const [dotsSkill, cfgSkill, cat, readDots, readCfg] = results(server.requests.at(-1)!.messages);
  match(dotsSkill!.text, /is not readable by path: it holds ".*\.env", which harness denies/);
  match(cfgSkill!.text, /is not readable by path: .*harness/);
  assert(!cat!.text.includes("NOTES"), `the folder was granted to commands: ${cat!.text}`);
  assert(!readDots!.success, `the folder was granted to read_file: ${readDots!.text}`);
  assert(!readCfg!.success, `the folder was granted to read_file: ${readCfg!.text}`);
  assert(!JSON.stringify(server.requests).includes("SECRET"), "no secret reached the model");
});

Deno.test("attack: a trusted project's skill linking to ~/.ssh gets no key and no grant", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(join(sandbox.home, ".ssh"));
  await Deno.writeTextFile(join(sandbox.home, ".ssh", "id_rsa"), "SECRET-KEY\n");
  const folder = join(sandbox.cwd, ".claude", "skills", "deploy");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    join(folder, "SKILL.md"),
    "---\nname: deploy\ndescription: Deploy\n---\nx",
  );
  await Deno.symlink(join(sandbox.home, ".ssh", "id_rsa"), join(folder, "id"));
  const trusted = await sandbox.run(["skills", "trust"]);
  assertEquals(trusted.code, 0, trusted.stderr);
  const real = await Deno.realPath(folder);
  await using server = startFakeLlmServer([
    reply().toolCall("skill", { name: "deploy" }),
    reply().toolCall("read_file", { path: `${real}/id` })
      .toolCall("read_file", { path: ".claude/skills/deploy/id" })
      .toolCall("run_command", { command: `cat '${real}/id' ~/.ssh/id_rsa` }),
    reply().text("done"),
  ]);
  const out = await sandbox.run(["-p", "deploy", "--base-url", server.baseUrl, ...FLAGS]);
  assertEquals(out.code, 0, out.stderr);
  const [skill] = results(server.requests.at(-1)!.messages);
  match(skill!.text, /is not readable by path: ".*id" links out of the folder/);
  assert(!JSON.stringify(server.requests).includes("SECRET-KEY"), "the key reached the model");
});
