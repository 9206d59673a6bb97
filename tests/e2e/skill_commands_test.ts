// `/skill-name words` through the real CLI: the words go into the skill's text as a Markdown
// command's do (`$ARGUMENTS`, `$1`..`$9`, else `ARGUMENTS: words`), in the REPL and with -p.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";

async function userSkill(sandbox: CliSandbox, name: string, text: string): Promise<string> {
  const folder = join(sandbox.home, ".claude", "skills", name);
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(join(folder, "SKILL.md"), text);
  return folder;
}

Deno.test("-p /skill-name words puts the words into $ARGUMENTS and $1 of the skill's text", async () => {
  await using sandbox = await cliSandbox();
  await userSkill(
    sandbox,
    "pdf",
    "---\nname: pdf\ndescription: Read PDFs\nargument-hint: FILE PAGES\n---\n" +
      "Open $1 and read its first $2 pages. Asked: $ARGUMENTS.\n",
  );
  await using server = startFakeLlmServer([reply().text("read")]);
  const out = await sandbox.run([
    "-p",
    '/pdf "annual report.pdf" 3',
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const sent = String(server.requests[0]!.messages.at(-1)!.content);
  match(sent, /^<skill name="pdf" folder="/);
  match(
    sent,
    /Open annual report\.pdf and read its first 3 pages\. Asked: "annual report\.pdf" 3\./,
  );
  assert(!sent.includes("$1") && !sent.includes("$ARGUMENTS"), sent);
});

Deno.test("REPL /skill-name: /help lists it; a skill without placeholders gets ARGUMENTS", async () => {
  await using sandbox = await cliSandbox();
  await userSkill(
    sandbox,
    "lint",
    "---\nname: lint\ndescription: Lint the code\nargument-hint: '[path]'\n---\nRun the linter.\n",
  );
  await using server = startFakeLlmServer([reply().text("linted")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m"], {
    stdin: "/help\n/lint src/\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /\/lint +Lint the code \[path\] \(skill\)/);
  const sent = String(server.requests[0]!.messages.at(-1)!.content);
  match(sent, /Run the linter\.\n\nARGUMENTS: src\/\n<\/skill>/);
});
