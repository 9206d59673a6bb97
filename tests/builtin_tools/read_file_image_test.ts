// read_file of an image: a file whose first bytes are PNG (whatever its name) comes back as
// an image the host hashed itself; a text file named .png is read as text.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { openLoopHost } from "../helpers/loop_host.ts";

/** A real 1x1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("read_file of a PNG (whatever its name) returns the image, hashed by the host", async () => {
  await using h = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
  Deno.writeFileSync(join(h.workspace, "shot.txt"), PNG);
  const run = await h.host.run("read_file", { path: "shot.txt", offset: 1, limit: 10 }, {
    state: {},
  });
  assert(run.result.success, JSON.stringify(run.result));
  assert(run.result.data?.includes("is a PNG image"));
  assertEquals(run.images?.length, 1);
  const image = run.images![0]!;
  assertEquals([image.mediaType, image.bytes, image.name], ["image/png", PNG.length, "shot.txt"]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", PNG));
  assertEquals(image.sha256, [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""));
  // A .png that is text is read as text.
  Deno.writeTextFileSync(join(h.workspace, "fake.png"), "not an image\n");
  const text = await h.host.run("read_file", { path: "fake.png", offset: 1, limit: 10 }, {
    state: {},
  });
  assertEquals([text.result.data, text.images], ["1: not an image", undefined]);
});
