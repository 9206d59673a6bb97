// The session log keeps images, each once by its hash: a resumed session sends them again, and
// the log's events name them without their bytes.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { openSessionStore } from "../../src/sessions/open_session_store.ts";
import {
  type ImagePart,
  makeToolResult,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";

const IMAGE: ImagePart = {
  mediaType: "image/png",
  data: btoa("\x89PNG\r\n\x1a\n-pixels-"),
  sha256: "b".repeat(64),
  bytes: 16,
  name: "shot.png",
};

const info = { model: "m", baseUrl: "u", cwd: "/w", grants: "", provider: "openai" };

Deno.test("a resumed session sends its images again; each image is stored once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "h.db");
    const store = openSessionStore({ path });
    assert(store.ok);
    const writer = store.value.startSession(info);
    assert(writer.ok);
    const w = writer.value;
    w.record({
      type: "message",
      message: { kind: "user", content: "look", data: { images: [IMAGE] } },
    });
    w.record({ type: "message", message: { kind: "assistant", content: "", data: {} } });
    w.record({
      type: "message",
      message: toolCallMessage({ id: "c1", name: "read_file", arguments: '{"path":"shot.png"}' }),
    });
    w.record({
      type: "message",
      message: toolResultMessage("c1", "read_file", makeToolResult({ data: "an image" }), [IMAGE]),
    });
    w.end();
    const loaded = store.value.loadSession(w.id!);
    assert(loaded.ok);
    const [user, , , result] = loaded.value.messages;
    assert(user?.kind === "user" && result?.kind === "tool_result");
    assertEquals(user.data?.images, [IMAGE]);
    assertEquals(result.data.images, [IMAGE]);
    // The events name the image; the bytes are stored once.
    const exported: string[] = [];
    store.value.exportSession(w.id!, (line) => exported.push(line));
    assert(!exported.join("\n").includes(IMAGE.data), "the log's events hold no image bytes");
    store.value.close();
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path);
    assertEquals(db.prepare("SELECT count(*) AS n FROM images").get()?.n, 1);
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
