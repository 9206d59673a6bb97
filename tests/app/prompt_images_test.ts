// Images a message names: @pic.png read through the sandbox's read_file (outside the
// workspace or denied: refused), and pasted paths, checked by their first bytes and size.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { mentionedImage, pastedImages } from "../../src/app/prompt_images.ts";
import { openLoopHost } from "../helpers/loop_host.ts";

/** A real 1x1 PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

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
