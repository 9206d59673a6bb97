// @ mentions through the real sandboxed tool host: a file comes as read_file gives it, a
// folder as ls lists it, and what a tool call could not read is refused before anything is
// sent (attack tests: a path out of the workspace, a --deny-read file, a link out of the grant).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { expandMentions, parseMentions } from "../../src/turn_input/mentions.ts";
import { mentionSourceOf } from "../../src/turn_input/mention_source.ts";
import { openLoopHost } from "../helpers/loop_host.ts";

Deno.test("parseMentions() finds paths, quoted paths and escaped spaces, and leaves e-mail alone", () => {
  const found = parseMentions(
    '@a.ts, then (see @b/c.md). Also @"x y.txt" and @p\\ q.md; mail me@host.org @ alone',
  );
  assertEquals(found.map((m) => m.path), ["a.ts", "b/c.md", "x y.txt", "p q.md"]);
  const again = parseMentions("look at (@b/c.md) and @src/");
  assertEquals(again.map((m) => [m.path, m.folder]), [["b/c.md", false], ["src/", true]]);
});

Deno.test("expandMentions() attaches a file as read_file returns it and a folder as ls lists it", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=."],
    files: { "notes.txt": "alpha\nbeta\n" },
  });
  await Deno.mkdir(join(loop.workspace, "src"));
  await Deno.writeTextFile(join(loop.workspace, "src", "main.ts"), "export {};\n");
  const source = mentionSourceOf(loop.host);
  const sent = await expandMentions("Explain @notes.txt and @src/ please", source);
  assert("text" in sent, JSON.stringify(sent));
  assert(sent.text.startsWith("Explain @notes.txt and @src/ please\n\n"), sent.text);
  assert(sent.text.includes('<file path="notes.txt">\n1: alpha\n2: beta\n</file>'), sent.text);
  assert(/<folder path="src\/">\n[^]*main\.ts[^]*<\/folder>/.test(sent.text), sent.text);
  assertEquals(sent.attached, ["notes.txt", "src/"]);
  // A folder named without its slash is listed too; a missing path stays text.
  const folder = await expandMentions("@src and @nothing.md", source);
  assert("text" in folder && folder.text.includes('<folder path="src">'), JSON.stringify(folder));
  assertEquals(folder.notes, [
    "@nothing.md: no such file or folder in the workspace; sent as text",
  ]);
});

Deno.test("expandMentions() gives a long file as read_file would: cut, with where to read on", async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n");
  await using loop = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=."],
    files: { "long.txt": lines },
  });
  const sent = await expandMentions("@long.txt", mentionSourceOf(loop.host));
  assert("text" in sent);
  // read_file stops at whole lines within the output limit and says where to go on.
  const shown =
    /\n(\d+): line \d+\n\[Showing lines 1-(\d+) of 3000[^\]]*offset (\d+) to continue\.\]\n<\/file>$/
      .exec(sent.text);
  assert(shown, sent.text.slice(-300));
  assertEquals(Number(shown[3]), Number(shown[2]) + 1);
  assertEquals(shown[1], shown[2]);
});

Deno.test("expandMentions() attack: @../../etc/passwd is refused before anything is sent", async () => {
  await using loop = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
  const sent = await expandMentions("summarise @../../etc/passwd", mentionSourceOf(loop.host));
  assert("refused" in sent, JSON.stringify(sent).slice(0, 500));
  assert(sent.refused.startsWith('Cannot attach "@../../etc/passwd": '), sent.refused);
  assert(sent.refused.endsWith("The message was not sent"), sent.refused);
  assert(!sent.refused.includes("root:"), sent.refused);
  // An absolute path is no better.
  const absolute = await expandMentions("@/etc/passwd", mentionSourceOf(loop.host));
  assert("refused" in absolute, JSON.stringify(absolute).slice(0, 500));
});

Deno.test("expandMentions() attack: @.env is refused under --deny-read=.env", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--deny-read=.env"],
    files: { ".env": "API_KEY=secret", "ok.txt": "fine" },
  });
  const sent = await expandMentions("@ok.txt and @.env", mentionSourceOf(loop.host));
  assert("refused" in sent, JSON.stringify(sent));
  assert(sent.refused.includes("@.env"), sent.refused);
  assert(!sent.refused.includes("secret"), sent.refused);
});

Deno.test({
  name: "expandMentions() attack: a link out of the granted folder is refused",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using loop = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
    const outside = await Deno.makeTempFile({ prefix: "harness_secret_" });
    try {
      await Deno.writeTextFile(outside, "TOP SECRET");
      await Deno.symlink(outside, join(loop.workspace, "link.txt"));
      const sent = await expandMentions("@link.txt", mentionSourceOf(loop.host));
      assert("refused" in sent, JSON.stringify(sent));
      assert(!sent.refused.includes("TOP SECRET"), sent.refused);
    } finally {
      await Deno.remove(outside);
    }
  },
});

Deno.test("expandMentions() without a read grant names the flag that would allow it", async () => {
  await using loop = await openLoopHost({ builtins: true, files: { "a.txt": "x" } });
  const sent = await expandMentions("@a.txt", mentionSourceOf(loop.host));
  assert("refused" in sent, JSON.stringify(sent));
  assert(sent.refused.includes("--allow-read"), sent.refused);
});

Deno.test("expandMentions() refuses a mention a policy rule denies", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=."],
    files: { "secret.md": "x" },
  });
  const source = mentionSourceOf(loop.host, {
    denies: (tool, args) =>
      tool === "read_file" && args.path === "secret.md" ? "denied by rule #1" : undefined,
  });
  const sent = await expandMentions("@secret.md", source);
  assert("refused" in sent && sent.refused.includes("denied by rule #1"), JSON.stringify(sent));
});

Deno.test("expandMentions() hands an image path to the image hook when there is one", async () => {
  const asked: string[] = [];
  const source = {
    run: () => Promise.reject(new Error("an image is not read as text")),
    image: (path: string) => {
      asked.push(path);
      return Promise.resolve({ ok: true as const, part: { image: path } });
    },
  };
  const sent = await expandMentions("What is in @shot.PNG?", source);
  assert("text" in sent);
  assertEquals(asked, ["shot.PNG"]);
  assertEquals(sent.images, [{ image: "shot.PNG" }]);
  assertEquals(sent.text, "What is in @shot.PNG?");
});

Deno.test("expandMentions() without an image hook leaves an image path to the image handling", async () => {
  const source = { run: () => Promise.reject(new Error("an image is not read as text")) };
  const sent = await expandMentions("What is in @shot.png?", source);
  assertEquals(sent, { text: "What is in @shot.png?", attached: [], images: [], notes: [] });
});
