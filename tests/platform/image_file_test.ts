// image_file.ts: the four formats told apart by their first bytes whatever the name says,
// look-alikes refused, the size limit checked before a file is read, and only regular files.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  hasImageExtension,
  imagePart,
  readImageFile,
  sniffImageType,
} from "../../src/platform/image_file.ts";
import { hasCommand } from "../helpers/system_commands.ts";

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(
    parts.flatMap((part) => typeof part === "string" ? [...new TextEncoder().encode(part)] : part),
  );

const PNG = bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 13], "IHDR");
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], "JFIF\0");
const GIF87 = bytes("GIF87a", [1, 0, 1, 0]);
const GIF89 = bytes("GIF89a", [1, 0, 1, 0]);
const WEBP = bytes("RIFF", [36, 0, 0, 0], "WEBPVP8 ");

Deno.test("sniffImageType() knows PNG, JPEG, GIF and WebP by their first bytes", () => {
  assertEquals(
    [PNG, JPEG, GIF87, GIF89, WEBP].map(sniffImageType),
    ["image/png", "image/jpeg", "image/gif", "image/gif", "image/webp"],
  );
});

Deno.test("sniffImageType() refuses look-alikes: WAV in RIFF, GIF8 without its version, SVG, text", () => {
  for (
    const other of [
      bytes("RIFF", [36, 0, 0, 0], "WAVEfmt "),
      bytes("GIF8xa"),
      bytes("<svg xmlns='http://www.w3.org/2000/svg'/>"),
      bytes([0x89], "PNX\r\n"),
      bytes([0xff, 0xd8]),
      bytes(""),
    ]
  ) {
    assertEquals(sniffImageType(other), undefined, new TextDecoder().decode(other));
  }
});

Deno.test("hasImageExtension() takes the four formats' names in any case", () => {
  assertEquals(
    ["a.png", "b.JPG", "c.jpeg", "d.Gif", "e.webp", "f.svg", "g.bmp", "png"].map(
      hasImageExtension,
    ),
    [true, true, true, true, true, false, false, false],
  );
});

Deno.test("imagePart() hashes the bytes and names the limit it is over", async () => {
  const part = await imagePart(WEBP, { maxBytes: 100, name: "w.webp" });
  assert("mediaType" in part);
  assertEquals(part.mediaType, "image/webp");
  assertEquals(part.bytes, WEBP.length);
  assertEquals(atob(part.data).length, WEBP.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", WEBP));
  assertEquals(part.sha256, [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""));
  const big = await imagePart(WEBP, { maxBytes: 10, name: "w.webp" });
  assert("error" in big);
  assert(big.error.includes('"w.webp"') && big.error.includes("image_max_size"), big.error);
});

Deno.test("readImageFile(): a renamed text file, a folder and a file over the limit are refused; a JPEG named .txt is read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    Deno.writeTextFileSync(join(dir, "notes.png"), "just text");
    const renamed = await readImageFile(join(dir, "notes.png"), { maxBytes: 1000 });
    assert("error" in renamed && renamed.error.includes("not a PNG, JPEG, GIF or WebP"));
    Deno.mkdirSync(join(dir, "folder.png"));
    const folder = await readImageFile(join(dir, "folder.png"), { maxBytes: 1000 });
    assert("error" in folder && folder.error.includes("is not a file"), JSON.stringify(folder));
    // A 64 MiB sparse file: refused by its size, not read.
    const huge = await Deno.open(join(dir, "huge.png"), { write: true, create: true });
    await huge.truncate(64 * 1024 * 1024);
    huge.close();
    const over = await readImageFile(join(dir, "huge.png"), { maxBytes: 1000, name: "huge.png" });
    assert("error" in over && over.error.includes("image_max_size"), JSON.stringify(over));
    Deno.writeFileSync(join(dir, "shot.jpg.txt"), JPEG);
    const jpeg = await readImageFile(join(dir, "shot.jpg.txt"), { maxBytes: 1000 });
    assert("mediaType" in jpeg && jpeg.mediaType === "image/jpeg");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "readImageFile() refuses a named pipe at once instead of waiting for a writer",
  ignore: !hasCommand("mkfifo"),
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const fifo = join(dir, "pipe.png");
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert(made.success, "mkfifo");
      const timer = new Promise<"hung">((done) => setTimeout(() => done("hung"), 3000));
      const read = readImageFile(fifo, { maxBytes: 1000, name: "pipe.png" });
      const outcome = await Promise.race([read, timer]);
      assert(outcome !== "hung", "readImageFile waited on the pipe");
      assert("error" in outcome && outcome.error.includes("is not a file"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
