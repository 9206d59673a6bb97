// Custom commands from Markdown files: front matter, arguments, folders and precedence, and
// what a project's folder cannot do (replace a user's command, use a file it links to
// outside itself, be used without trust).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  commandFolders,
  expandCommand,
  loadCustomCommands,
  parseCommandFile,
} from "../../src/turn_input/custom_commands.ts";
import { tempDir } from "../helpers/temp_dir.ts";

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("parseCommandFile() reads Claude Code's front matter and keeps a body without one", () => {
  const parsed = parseCommandFile(
    "\uFEFF---\r\ndescription: Create a git commit\r\nargument-hint: [message]\r\nallowed-tools: Bash(git add:*)\r\n---\r\n\r\nCommit with $ARGUMENTS\r\n",
  );
  assertEquals(parsed, {
    description: "Create a git commit",
    argumentHint: "[message]",
    body: "Commit with $ARGUMENTS",
  });
  assertEquals(parseCommandFile("Just do it.\n"), { body: "Just do it." });
});

Deno.test("expandCommand() fills $ARGUMENTS and $1..$9, and appends arguments a template does not use", () => {
  const command = (body: string) => ({
    name: "c",
    description: "",
    body,
    file: "c.md",
    scope: "user" as const,
  });
  assertEquals(
    expandCommand(command("Fix #$1 with priority $2; $3 is empty"), `123 "very high"`),
    "Fix #123 with priority very high;  is empty",
  );
  assertEquals(expandCommand(command("All: $ARGUMENTS."), "  a b  "), "All: a b.");
  assertEquals(
    expandCommand(command("Review the code."), "src/a.ts"),
    "Review the code.\n\nARGUMENTS: src/a.ts",
  );
  assertEquals(expandCommand(command("Review the code."), ""), "Review the code.");
  // A $ in the arguments is not a pattern.
  assertEquals(expandCommand(command("x $ARGUMENTS"), "$1 $&"), "x $1 $&");
});

Deno.test("loadCustomCommands() reads the user's and the project's folders, subfolders as folder:name", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "config");
  const work = join(dir.path, "work");
  await write(join(config, "commands", "review.md"), "---\ndescription: mine\n---\nMy review");
  await write(join(work, ".harness", "commands", "review.md"), "Project review (not used)");
  await write(join(work, ".harness", "commands", "deploy.md"), "Deploy $1");
  await write(join(work, ".claude", "commands", "frontend", "component.md"), "Make $1");
  await write(join(work, ".claude", "commands", "notes.txt"), "not a command");
  const { commands, problems } = loadCustomCommands(commandFolders(work, config));
  assertEquals(
    commands.map((c) => [c.name, c.scope, c.description]),
    [
      ["deploy", "project", "Deploy $1"],
      ["frontend:component", "project", "Make $1"],
      ["review", "user", "mine"],
    ],
  );
  assertEquals(problems, []);
});

Deno.test("loadCustomCommands() uses a project file only when allowed (trusted)", async () => {
  await using dir = await tempDir();
  const work = join(dir.path, "work");
  await write(join(work, ".harness", "commands", "a.md"), "A");
  await write(join(work, ".claude", "commands", "b.md"), "B");
  await write(join(dir.path, "config", "commands", "c.md"), "C");
  const trusted = new Set([join(work, ".claude", "commands", "b.md")]);
  const { commands } = loadCustomCommands(commandFolders(work, join(dir.path, "config")), {
    allow: (file) => trusted.has(file),
  });
  assertEquals(commands.map((c) => c.name), ["b", "c"]);
});

Deno.test({
  name:
    "loadCustomCommands() attack: a project's command linking to a file outside its folder is not read",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using dir = await tempDir();
    const secret = join(dir.path, "secret.txt");
    await Deno.writeTextFile(secret, "PRIVATE");
    const folder = join(dir.path, "work", ".claude", "commands");
    await Deno.mkdir(folder, { recursive: true });
    await Deno.symlink(secret, join(folder, "leak.md"));
    await Deno.writeTextFile(join(folder, "ok.md"), "fine");
    await Deno.symlink(join(folder, "ok.md"), join(folder, "alias.md"));
    const { commands } = loadCustomCommands([{ dir: folder, scope: "project" }]);
    assertEquals(commands.map((c) => c.name), ["alias", "ok"]);
    assert(commands.every((c) => !c.body.includes("PRIVATE")));
  },
});

Deno.test("loadCustomCommands() skips built-in names, names that cannot be typed and huge files", async () => {
  await using dir = await tempDir();
  await write(join(dir.path, "help.md"), "x");
  await write(join(dir.path, "two words.md"), "x");
  await write(join(dir.path, "big.md"), "x".repeat(70_000));
  await write(join(dir.path, "fine.md"), "x");
  const { commands, problems } = loadCustomCommands([{ dir: dir.path, scope: "user" }], {
    reserved: ["help"],
  });
  assertEquals(commands.map((c) => c.name), ["fine"]);
  assertEquals(problems.length, 3);
  assert(problems.some((p) => p.includes("/help is a built-in command")), problems.join("\n"));
});
