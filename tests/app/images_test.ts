// Images from the user and from read_file: checked by their first bytes, within the size
// limit, read through the sandbox for @ mentions, and sent only to a model that can see,
// which the server is asked about (Ollama's capabilities, llama-server's modalities).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { refuseUserImages, withImageGate } from "../../src/app/image_gate.ts";
import { mentionedImage, pastedImages } from "../../src/app/prompt_images.ts";
import { modelVision } from "../../src/app/model_vision.ts";
import { openLoopHost } from "../helpers/loop_host.ts";
import { startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { startFakeLlmServer } from "../helpers/fake_llm_server.ts";

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

Deno.test("@pic.png is read through the sandbox: outside the workspace or denied, it is refused", async () => {
  await using h = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--deny-read=secret.png"],
  });
  Deno.writeFileSync(join(h.workspace, "pic.png"), PNG);
  Deno.writeFileSync(join(h.workspace, "secret.png"), PNG);
  const image = mentionedImage(h.host);
  const ok = await image("pic.png");
  assert(ok.ok && ok.part.mediaType === "image/png");
  const outside = await image("../../../etc/hostname.png");
  assert(!outside.ok);
  const denied = await image("secret.png");
  assert(
    !denied.ok && /deny|denied|not allowed|--allow-read/i.test(denied.message),
    JSON.stringify(denied),
  );
  Deno.writeTextFileSync(join(h.workspace, "notes.png"), "text");
  const notImage = await image("notes.png");
  assert(!notImage.ok && notImage.message.includes("not a PNG"));
});

Deno.test("a pasted image path is attached; a pasted non-image with an image name refuses the message", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    Deno.writeFileSync(join(dir, "My Shot.png"), PNG);
    Deno.writeTextFileSync(join(dir, "evil.png"), "#!/bin/sh\n");
    const found = await pastedImages(`what is in '${dir}/My Shot.png'?`, { maxBytes: 1024 });
    assert("images" in found && found.images.length === 1);
    assertEquals(found.images[0]!.name, `${dir}/My Shot.png`);
    const refused = await pastedImages(`look at ${dir}/evil.png`, { maxBytes: 1024 });
    assert(
      "refused" in refused && refused.refused.includes("is not a PNG, JPEG, GIF or WebP image"),
    );
    const big = await pastedImages(`look at ${dir}/My\\ Shot.png`, { maxBytes: 10 });
    assert("refused" in big && big.refused.includes("image_max_size"));
    const prose = await pastedImages("see /usr/share/none.png for details", { maxBytes: 1024 });
    assertEquals(prose, { images: [] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("modelVision() asks Ollama's capabilities and llama-server's modalities", async () => {
  await using ollama = startFakeOllama({
    models: [
      { name: "gemma3", capabilities: ["completion", "vision"] },
      { name: "qwen3", capabilities: ["completion", "tools"] },
    ],
  });
  const ask = (model: string) =>
    modelVision({ vision: "auto" }, { provider: "ollama", model, baseUrl: ollama.url })();
  assertEquals((await ask("gemma3")).sees, true);
  const blind = await ask("qwen3");
  assertEquals(blind.sees, false);
  assert(blind.why?.includes('Ollama does not list "vision"'));
  await using llama = startFakeLlmServer([], {
    routes: {
      "/props": { modalities: { vision: false }, default_generation_settings: { n_ctx: 4096 } },
    },
  });
  const text = await modelVision({ vision: "auto" }, {
    provider: "openai",
    model: "m",
    baseUrl: llama.baseUrl,
  })();
  assertEquals(text.sees, false);
  assert(text.why?.includes("--mmproj"), text.why);
  const forced = await modelVision({ vision: true }, {
    provider: "openai",
    model: "m",
    baseUrl: llama.baseUrl,
  })();
  assertEquals(forced.sees, true);
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
