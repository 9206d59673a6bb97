// Images on the wire, through the real providers against loopback servers: a user message's
// image as an `image_url` data URL (OpenAI-compatible), in `images` (Ollama), as an image block
// (Anthropic); a tool result's image after the results (OpenAI, Ollama) or inside the
// tool_result block (Anthropic).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  type ImagePart,
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { createOllamaProvider } from "../../src/providers/ollama.ts";
import { createAnthropicProvider } from "../../src/providers/anthropic.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { startFakeAnthropicServer } from "../helpers/fake_anthropic_server.ts";

const PNG: ImagePart = {
  mediaType: "image/png",
  data: "iVBORw0KGgo=",
  sha256: "a".repeat(64),
  bytes: 8,
  name: "shot.png",
};
const JPEG: ImagePart = { ...PNG, mediaType: "image/jpeg", data: "/9j/", name: "photo.jpg" };

const CONVERSATION: Message[] = [
  { kind: "system", content: "sys" },
  { kind: "user", content: "What is on this screen?", data: { images: [PNG] } },
  { kind: "assistant", content: "", data: {} },
  toolCallMessage({ id: "c1", name: "read_file", arguments: '{"path":"photo.jpg"}' }),
  toolResultMessage("c1", "read_file", makeToolResult({ data: "photo.jpg is an image" }), [JPEG]),
];

Deno.test("OpenAI-compatible: images go as image_url data URLs; a tool's after the results", async () => {
  await using server = startFakeLlmServer([reply().text("a cat")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "vl" });
  const turn = await provider.complete({ messages: CONVERSATION, tools: [] });
  assertEquals(turn.text, "a cat");
  const messages = server.requests[0]!.messages;
  assertEquals(messages[1], {
    role: "user",
    content: [
      { type: "text", text: "What is on this screen?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ],
  });
  assertEquals(messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
  const after = messages[4]!.content as unknown as { type: string; image_url?: { url: string } }[];
  assert(JSON.stringify(after[0]).includes("photo.jpg (from read_file, call c1)"));
  assertEquals(after[1], { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/" } });
  assertEquals(server.pairingErrors, []);
});

Deno.test("Ollama: images go in the message's images; a tool's in a user message after", async () => {
  await using server = startFakeOllama({
    models: [{ name: "gemma3", capabilities: ["completion", "vision"] }],
  });
  server.script(ollamaReply().text("a cat").done());
  const provider = createOllamaProvider({ baseUrl: server.url, model: "gemma3" });
  const turn = await provider.complete({ messages: CONVERSATION, tools: [] });
  assertEquals(turn.stopReason, "stop");
  const chat = server.requests.find((r) => r.path === "/api/chat")!;
  const messages = chat.body!.messages as Record<string, unknown>[];
  assertEquals(messages[1], {
    role: "user",
    content: "What is on this screen?",
    images: ["iVBORw0KGgo="],
  });
  assertEquals(messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
  assertEquals(messages[4]!.images, ["/9j/"]);
  assertEquals(server.problems, []);
});

Deno.test("Anthropic: image blocks before the text; a tool's image inside its tool_result", async () => {
  await using server = startFakeAnthropicServer([reply().text("a cat")]);
  const provider = createAnthropicProvider({
    baseUrl: server.baseUrl,
    model: "claude",
    apiKey: "k",
  });
  const turn = await provider.complete({ messages: CONVERSATION, tools: [] });
  assertEquals(turn.text, "a cat");
  const messages = server.requests[0]!.messages as unknown as {
    role: string;
    content: Record<string, unknown>[];
  }[];
  assertEquals(messages[0]!.content, [
    { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    { type: "text", text: "What is on this screen?" },
  ]);
  const result = messages[2]!.content[0]!;
  assertEquals(result.type, "tool_result");
  assertEquals((result.content as unknown[])[1], {
    type: "image",
    source: { type: "base64", media_type: "image/jpeg", data: "/9j/" },
  });
});
