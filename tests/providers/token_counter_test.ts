// TokenCounter with images: an image counts as a fixed estimate, and the server's count of a
// request that holds one (the image's tokens included) teaches nothing about the text.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { ImagePart, Message } from "../../src/messages.ts";
import { makeToolResult, toolResultMessage } from "../../src/messages.ts";
import {
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  requestSize,
  TokenCounter,
} from "../../src/providers/token_counter.ts";

const image: ImagePart = { mediaType: "image/png", data: "iVBORw0KGgo=", sha256: "ab", bytes: 8 };
const text = "x".repeat(4000);

Deno.test("TokenCounter counts a user message's and a tool result's images", () => {
  const counter = new TokenCounter();
  const messages: Message[] = [
    { kind: "user", content: text, data: { images: [image, image] } },
    toolResultMessage("c1", "read_file", makeToolResult({ data: "" }), [image]),
  ];
  const size = requestSize(messages, []);
  assertEquals(size.images, 3);
  const textTokens = counter.messages([{ kind: "user", content: text }]);
  assertEquals(
    counter.messages(messages),
    textTokens + 3 * IMAGE_TOKENS + counter.text(messages[1]!.content) + MESSAGE_OVERHEAD,
  );
  assertEquals(counter.size(size), counter.request(messages, []));
});

Deno.test("TokenCounter learns nothing from a request with an image", () => {
  const counter = new TokenCounter();
  const withImage: Message[] = [{ kind: "user", content: text, data: { images: [image] } }];
  // 1,000 text tokens and a 1,600-token picture: learning would make text look 2.6x denser.
  assertEquals(counter.observe(requestSize(withImage, []), 2_600, "usage"), false);
  assertEquals(counter.charsPerToken, 4);
  assertEquals(counter.source, "default");
  // The same text alone still teaches.
  const plain: Message[] = [{ kind: "user", content: text }];
  assertEquals(counter.observe(requestSize(plain, []), 2_000, "usage"), true);
  assertEquals(counter.source, "usage");
});
