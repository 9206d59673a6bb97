// Images end to end, through the real CLI against scripted servers: `@shot.png` and a pasted
// path reach a vision model as an image_url data URL (Ollama: images), read_file of a picture
// follows the tool results, a resumed session sends its images again, and a model that cannot
// see, an image over image_max_size or a file that is no image refuse the message before
// anything is sent. The REPL (pty) and ACP send them too.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { type RecordedMessage, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";
import { startAcpClient } from "../helpers/acp_client.ts";

/** A real 1x1 PNG, and the data URL a server gets for it. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PNG = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
const DATA_URL = `data:image/png;base64,${PNG_BASE64}`;

/** A llama-server that says whether its model reads images (/props modalities). */
function llamaServer(vision: boolean, script: ReturnType<typeof reply>[]) {
  return startFakeLlmServer(script, {
    routes: {
      "/props": { modalities: { vision }, default_generation_settings: { n_ctx: 8192 } },
    },
  });
}

/** The image URLs of a recorded message's content parts. */
function imageUrls(message: RecordedMessage | undefined): string[] {
  const content = message?.content as unknown;
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => part?.type === "image_url" ? [part.image_url.url] : []);
}

const read = ["--allow-read=."];

Deno.test("harness -p sends @shot.png to a vision model as a data URL, and a resumed session sends it again", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeFile(`${sandbox.cwd}/shot.png`, PNG);
  await using server = llamaServer(true, [
    reply().text("A single dark pixel."),
    reply().text("Still one pixel."),
  ]);
  const model = ["--base-url", server.baseUrl, "--model", "vl"];
  const out = await sandbox.run(["-p", "What is in @shot.png?", ...model, ...read]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout, "A single dark pixel.\n");
  const sent = server.requests[0]!.messages.at(-1);
  assertEquals(imageUrls(sent), [DATA_URL]);
  const again = await sandbox.run(["-p", "And now?", "--continue", ...model, ...read]);
  assertEquals(again.code, 0, again.stderr);
  const history = server.requests[1]!.messages;
  assertEquals(imageUrls(history.find((m) => m.role === "user")), [DATA_URL]);
  assertEquals(history.at(-1)?.content, "And now?");
});

Deno.test("harness -p refuses an image before sending when the model cannot see, and says what to do", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeFile(`${sandbox.cwd}/shot.png`, PNG);
  await using server = llamaServer(false, [reply().text("never")]);
  const out = await sandbox.run([
    "-p",
    "What is in @shot.png?",
    "--base-url",
    server.baseUrl,
    "--model",
    "text-only",
    "--output-format",
    "json",
    ...read,
  ]);
  assertEquals(out.code, 1);
  const json = lastJsonLine(out.stdout);
  match(String(json.result ?? ""), /^$/);
  match(
    String(json.error ?? json.error_message ?? out.stderr),
    /cannot see images \(llama-server was started without a vision projector: start it with --mmproj FILE\)/,
  );
  assertEquals(server.requests.length, 0, "nothing was sent");
});

Deno.test("harness -p refuses a .png that is no image and an image over image_max_size", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/fake.png`, "#!/bin/sh\necho hi\n");
  await Deno.writeFile(`${sandbox.cwd}/shot.png`, PNG);
  await using server = llamaServer(true, []);
  const model = ["--base-url", server.baseUrl, "--model", "vl", ...read];
  const fake = await sandbox.run(["-p", "look at @fake.png", ...model]);
  assertEquals(fake.code, 1);
  match(fake.stderr, /Cannot attach "@fake\.png": it is not a PNG, JPEG, GIF or WebP image/);
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/config.jsonc`,
    '{ "image_max_size": 10 }',
  );
  const big = await sandbox.run(["-p", "look at @shot.png", ...model]);
  assertEquals(big.code, 1);
  match(big.stderr, /Image "shot\.png" is 70 B, over the 10 B of image_max_size/);
  assertEquals(server.requests.length, 0);
});

Deno.test("harness -p attack: an image path written in the prompt is text, never read", async () => {
  await using sandbox = await cliSandbox();
  const outside = `${sandbox.home}/Screen Shot.png`;
  await Deno.writeFile(outside, PNG);
  await using server = llamaServer(true, [reply().text("A path.")]);
  const prompt = `'${outside}' what is this?`;
  const out = await sandbox.run(["-p", prompt, "--base-url", server.baseUrl, "--model", "vl"]);
  assertEquals(out.code, 0, out.stderr);
  const sent = server.requests[0]!.messages.at(-1);
  assertEquals(imageUrls(sent), []);
  assertEquals(sent?.content, prompt);
});

Deno.test({
  name: "REPL: a dropped (pasted) image path is read, the same path typed is text",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    const outside = `${sandbox.home}/Screen Shot.png`;
    await Deno.writeFile(outside, PNG);
    const typed = `${sandbox.home}/typed.png`;
    await Deno.writeFile(typed, PNG);
    await using server = llamaServer(true, [reply().text("One pixel."), reply().text("Text.")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "vl"]);
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    // A terminal pastes a dropped file's path in bracketed-paste markers.
    await pty.type(`\x1b[200~'${outside}'\x1b[201~ what is this?\r`);
    await pty.waitFor((o) => o.includes("One pixel."), "the answer");
    assertEquals(imageUrls(server.requests[0]!.messages.at(-1)), [DATA_URL]);
    await pty.waitFor((o) => /One pixel\.[^]*> /.test(o), "the prompt again");
    await pty.type(`${typed} and this?\r`);
    await pty.waitFor((o) => o.includes("Text."), "the second answer");
    assertEquals(imageUrls(server.requests[1]!.messages.at(-1)), []);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test("harness -p: read_file of a picture shows it to the model after the tool results", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeFile(`${sandbox.cwd}/diagram.png`, PNG);
  await using server = llamaServer(true, [
    reply().toolCall("read_file", { path: "diagram.png" }),
    reply().text("It is a pixel."),
  ]);
  const out = await sandbox.run([
    "-p",
    "describe diagram.png",
    "--yes",
    "--base-url",
    server.baseUrl,
    "--model",
    "vl",
    ...read,
  ]);
  assertEquals(out.code, 0, out.stderr);
  const messages = server.requests[1]!.messages;
  assertEquals(messages.map((m) => m.role).slice(-3), ["assistant", "tool", "user"]);
  assertEquals(imageUrls(messages.at(-1)), [DATA_URL]);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p sends an image to an Ollama vision model in images", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeFile(`${sandbox.cwd}/shot.png`, PNG);
  await using server = startFakeOllama({
    models: [{
      name: "gemma3",
      contextLength: 8192,
      capabilities: ["completion", "tools", "vision"],
    }],
  });
  server.script(ollamaReply().text("A pixel.").done());
  const out = await sandbox.run([
    "-p",
    "what is @shot.png",
    "--base-url",
    server.url,
    "--provider",
    "ollama",
    "--model",
    "gemma3",
    ...read,
  ]);
  assertEquals(out.code, 0, out.stderr);
  const chat = server.requests.find((r) => r.path === "/api/chat")!;
  const last = (chat.body!.messages as Record<string, unknown>[]).at(-1)!;
  assertEquals(last.images, [PNG_BASE64]);
});

Deno.test({
  name: "REPL: a message with @shot.png sends the image",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeFile(`${sandbox.cwd}/shot.png`, PNG);
    await using server = llamaServer(true, [reply().text("One pixel.")]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, "--model", "vl", ...read]);
    await pty.waitFor((o) => o.includes("> "), "the prompt");
    await pty.type("what is in @shot.png\r");
    await pty.waitFor((o) => o.includes("One pixel."), "the answer");
    assertEquals(imageUrls(server.requests[0]!.messages.at(-1)), [DATA_URL]);
    await pty.waitFor((o) => /One pixel\.[^]*> /.test(o), "the prompt again");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test("harness acp sends an editor's image block to the model", async () => {
  await using sandbox = await cliSandbox();
  await using server = llamaServer(true, [reply().text("One pixel.")]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "vl"]);
  const init = await acp.initialize();
  assertEquals(init.agentCapabilities?.promptCapabilities?.image, true);
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "what is this?" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png" },
    ],
  });
  assertEquals(done.stopReason, "end_turn");
  const sent = server.requests[0]!.messages.at(-1);
  assertEquals(imageUrls(sent), [DATA_URL]);
  assert(JSON.stringify(sent).includes("what is this?"));
});

Deno.test("harness acp attack: an image path in an editor's prompt text is text, never read", async () => {
  await using sandbox = await cliSandbox();
  const outside = `${sandbox.home}/secret.png`;
  await Deno.writeFile(outside, PNG);
  await using server = llamaServer(true, [reply().text("A path.")]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "vl"]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: `summarise ${outside}` }],
  });
  assertEquals(done.stopReason, "end_turn");
  assertEquals(imageUrls(server.requests[0]!.messages.at(-1)), []);
});
