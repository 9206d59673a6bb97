// An editor's prompt through `harness acp`, as the REPL's: a link to a workspace file is
// attached as read_file gives it, a custom command is offered and expands, the instruction
// files are in the system prompt, and a mention the sandbox refuses sends nothing.

import { deepStrictEqual as assertEquals, ok as assert, rejects } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startAcpClient } from "../helpers/acp_client.ts";

Deno.test("harness acp attaches a linked workspace file, offers and expands custom commands", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(join(sandbox.cwd, "notes.txt"), "alpha\nbeta\n");
  await Deno.writeTextFile(join(sandbox.cwd, "AGENTS.md"), "Answer in French.");
  const commands = join(sandbox.home, ".config", "harness", "commands");
  await Deno.mkdir(commands, { recursive: true });
  await Deno.writeTextFile(
    join(commands, "review.md"),
    "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview @$1 carefully.",
  );
  await using server = startFakeLlmServer([reply().text("vu"), reply().text("revu")]);
  await using acp = startAcpClient(sandbox, [
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
  ]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  const linked: ContentBlock[] = [
    { type: "text", text: "What is in" },
    {
      type: "resource_link",
      uri: pathToFileURL(join(sandbox.cwd, "notes.txt")).href,
      name: "notes.txt",
    },
  ];
  await acp.agent.request("session/prompt", { sessionId, prompt: linked });
  const first = server.requests[0]!.messages;
  assert(String(first[0]?.content).includes("Answer in French."), String(first[0]?.content));
  assertEquals(
    first.at(-1)!.content,
    'What is in\n\n@"notes.txt"\n\n<file path="notes.txt">\n1: alpha\n2: beta\n</file>',
  );
  await acp.waitFor((n) =>
    n.update.sessionUpdate === "available_commands_update" &&
    n.update.availableCommands.some((c) => c.name === "review")
  );
  const offered =
    acp.updates.findLast((n) => n.update.sessionUpdate === "available_commands_update")!.update;
  assert(offered.sessionUpdate === "available_commands_update");
  assertEquals(offered.availableCommands.find((c) => c.name === "review"), {
    name: "review",
    description: "Review a file",
    input: { hint: "FILE" },
  });
  await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "/review notes.txt" }],
  });
  const sent = String(server.requests[1]!.messages.at(-1)!.content);
  assert(sent.startsWith('Review @notes.txt carefully.\n\n<file path="notes.txt">'), sent);
});

Deno.test("harness acp attack: a mention out of the workspace fails the prompt, nothing is sent", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("never")]);
  await using acp = startAcpClient(sandbox, [
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
  ]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  await rejects(
    acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "show @../../etc/passwd" }],
    }),
    /Cannot attach "@\.\.\/\.\.\/etc\/passwd"/,
  );
  assertEquals(server.requests.length, 0);
});

Deno.test("harness acp offers the skills as commands and sends a skill's text for /skill words", async () => {
  await using sandbox = await cliSandbox();
  const skill = join(sandbox.home, ".claude", "skills", "webapp-testing");
  await Deno.mkdir(skill, { recursive: true });
  await Deno.copyFile(
    new URL("../fixtures/real_files/skills/skills/skills/webapp-testing/SKILL.md", import.meta.url),
    join(skill, "SKILL.md"),
  );
  await using server = startFakeLlmServer([reply().text("tested")]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  await acp.waitFor((n) =>
    n.update.sessionUpdate === "available_commands_update" &&
    n.update.availableCommands.some((c) => c.name === "webapp-testing")
  );
  await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "/webapp-testing check the login page" }],
  });
  const sent = String(server.requests[0]!.messages.at(-1)!.content);
  assert(sent.startsWith(`<skill name="webapp-testing" folder="${skill}">`), sent.slice(0, 120));
  // The words go into the skill's text as a command's arguments do (the body uses no $1).
  assert(sent.includes("\n\nARGUMENTS: check the login page\n</skill>"), sent.slice(0, 400));
  const system = String(server.requests[0]!.messages[0]!.content);
  assert(system.includes("- webapp-testing: Toolkit for interacting with and testing"), system);
});
