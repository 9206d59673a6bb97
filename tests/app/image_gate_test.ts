// The image gate: a tool's image is left out, with a note the model reads, for a model that
// cannot see or an image over image_max_size; a user's images are refused before sending.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { refuseUserImages, withImageGate } from "../../src/app/image_gate.ts";
import { openLoopHost } from "../helpers/loop_host.ts";

/** A real 1x1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);
const sees = (value: boolean | undefined) => () =>
  Promise.resolve(
    value === false ? { sees: false, why: 'Model "m" cannot see images' } : { sees: value },
  );

Deno.test("the image gate leaves a tool's image out for a model that cannot see, and says so", async () => {
  await using h = await openLoopHost({ builtins: true, grants: ["--allow-read=."] });
  Deno.writeFileSync(join(h.workspace, "a.png"), PNG);
  const blind = withImageGate(h.host, { vision: sees(false), maxBytes: 1024 });
  const run = await blind.run("read_file", { path: "a.png", offset: 1, limit: 1 }, { state: {} });
  assertEquals(run.images, undefined);
  assert(
    run.result.data?.includes('[The image was not shown to you: Model "m" cannot see images]'),
  );
  const small = withImageGate(h.host, { vision: sees(true), maxBytes: 10 });
  const over = await small.run("read_file", { path: "a.png", offset: 1, limit: 1 }, { state: {} });
  assertEquals(over.images, undefined);
  assert(over.result.data?.includes("image_max_size"));
  const open = withImageGate(h.host, { vision: sees(undefined), maxBytes: 1024 });
  assertEquals(
    (await open.run("read_file", { path: "a.png", offset: 1, limit: 1 }, { state: {} })).images
      ?.length,
    1,
  );
});

Deno.test("refuseUserImages() refuses before sending: too big, or a model that cannot see", async () => {
  const image = {
    mediaType: "image/png" as const,
    data: "",
    sha256: "x",
    bytes: 2048,
    name: "a.png",
  };
  assert(
    (await refuseUserImages([image], { maxBytes: 1024, vision: sees(true) }))?.includes(
      "image_max_size",
    ),
  );
  assertEquals(
    await refuseUserImages([image], { maxBytes: 4096, vision: sees(false) }),
    'Model "m" cannot see images: the message was not sent',
  );
  assertEquals(
    await refuseUserImages([image], { maxBytes: 4096, vision: sees(undefined) }),
    undefined,
  );
});

Deno.test("the image gate keeps the runner's preview, so an approval still shows the diff", async () => {
  await using h = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--allow-write=."],
  });
  Deno.writeTextFileSync(join(h.workspace, "a.txt"), "alpha\n");
  const gated = withImageGate(h.host, { vision: sees(true), maxBytes: 1024 });
  assert(gated.preview, "preview was dropped");
  const validated = await gated.validate("write_file", { path: "a.txt", content: "beta\n" });
  assert(validated.ok);
  const previewed = await gated.preview("write_file", validated.value, {});
  assert(previewed && "change" in previewed, JSON.stringify(previewed));
});
