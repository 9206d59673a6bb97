// MessageReader: splits a server's stdout into JSON-RPC messages whatever the chunks, and a
// message over its limit streams to a file: the answer gets the text's start and where it is,
// and the text is saved unescaped (OversizeSpill), however the bytes were split.

import { deepStrictEqual as assertEquals, match, ok as assert, throws } from "node:assert/strict";
import { join } from "node:path";
import { MessageReader } from "../../src/mcp/message_reader.ts";
import { OversizeSpill } from "../../src/mcp/oversize_message.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function readAll(reader: MessageReader): unknown[] {
  const out: unknown[] = [];
  for (let m = reader.readMessage(); m !== null; m = reader.readMessage()) out.push(m);
  return out;
}

Deno.test("MessageReader: messages split across chunks, CRLF and blank lines", () => {
  const reader = new MessageReader({ spillFile: () => "/nonexistent/never" });
  const text = '{"jsonrpc":"2.0","id":1,"result":{}}\r\n\n{"jsonrpc":"2.0","method":"x"}\n';
  const bytes = encode(text);
  for (let i = 0; i < bytes.length; i += 5) reader.append(bytes.subarray(i, i + 5));
  assertEquals(readAll(reader), [
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", method: "x" },
  ]);
});

Deno.test("MessageReader: an answer over the limit is saved to a file and answered by its start", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const body = 'é"line"\n'.repeat(300);
    const reader = new MessageReader({ spillFile: () => join(dir, "big.txt"), limit: 1000 });
    const message = JSON.stringify({
      result: { content: [{ type: "text", text: body }, { type: "text", text: "end" }] },
      jsonrpc: "2.0",
      id: 7,
    });
    reader.append(encode(`${message}\n{"jsonrpc":"2.0","id":8,"result":{}}\n`));
    const [big, next] = readAll(reader) as {
      id: number;
      result: { content: { text: string }[] };
    }[];
    assertEquals(big?.id, 7);
    const text = big?.result.content[0]?.text ?? "";
    assert(text.startsWith('é"line"\n'), text);
    match(text, /more than the 1000 B one MCP message may hold here/);
    assertEquals(await Deno.readTextFile(join(dir, "big.txt")), `${body}\nend`);
    assertEquals(next?.id, 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MessageReader: an oversized error keeps its code's place; a request is dropped", async () => {
  const dir = await Deno.makeTempDir();
  try {
    let n = 0;
    const reader = new MessageReader({ spillFile: () => join(dir, `${n++}.txt`), limit: 100 });
    const error = { jsonrpc: "2.0", id: "a", error: { code: 1, message: "x".repeat(500) } };
    reader.append(encode(`${JSON.stringify(error)}\n`));
    const answer = reader.readMessage() as { id: string; error: { message: string } };
    assertEquals(answer.id, "a");
    match(answer.error.message, /^x+\n\[\.\.\. the server's answer was/);
    const request = {
      jsonrpc: "2.0",
      id: 3,
      method: "sampling/createMessage",
      params: { t: "y".repeat(500) },
    };
    reader.append(encode(`${JSON.stringify(request)}\n`));
    throws(() => reader.readMessage(), /answers no call/);
    assertEquals(reader.readMessage(), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OversizeSpill: escapes, surrogate pairs and UTF-8 split at any byte", async () => {
  const texts = ['h\u00e9llo "w"\n\t\\ / \u{1F600} \u0001', "\u2603".repeat(1000)];
  const message = {
    result: {
      content: [
        { type: "text", text: texts[0] },
        { type: "image", data: 'AA"', mimeType: "image/png" },
        { type: "text", text: texts[1] },
      ],
      structuredContent: { text: "not this", id: 9 },
    },
    jsonrpc: "2.0",
    id: 42,
  };
  const plain = JSON.stringify(message);
  const ascii = plain.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  const dir = await Deno.makeTempDir();
  try {
    for (const json of [plain, ascii]) {
      const bytes = encode(json);
      for (const size of [1, 3, 1000]) {
        const file = join(dir, `${json.length}-${size}.txt`);
        const spill = new OversizeSpill(file, 20);
        for (let i = 0; i < bytes.length; i += size) spill.write(bytes.subarray(i, i + size));
        const found = spill.finish();
        assertEquals(await Deno.readTextFile(file), texts.join("\n"), `${size}`);
        assertEquals(found.id, 42);
        assert(texts.join("\n").startsWith(found.head), found.head);
        assertEquals([...found.kinds].sort(), ["id", "jsonrpc", "result"]);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
