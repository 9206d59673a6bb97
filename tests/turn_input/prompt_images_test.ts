// Images a message names: @pic.png read through the sandbox's read_file (outside the
// workspace or denied: refused), and pasted paths, checked by their first bytes and size.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { mentionedImage, pastedImages } from "../../src/turn_input/prompt_images.ts";
import { FileGate } from "../../src/gate/file_gate.ts";
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
    const gate = FileGate.open({
      read: [],
      write: [],
      denyRead: [join(dir, "secret.png")],
      denyWrite: [],
      protected: [],
      protectedNames: [],
      hidden: [],
    });
    Deno.writeFileSync(join(dir, "secret.png"), PNG);
    const paste = (text: string, pasted: string[], maxBytes = 1024) =>
      pastedImages(text, { pasted, gate, maxBytes });
    // Pasted: read without a read grant (the user chose the file).
    const shot = `'${dir}/My Shot.png'`;
    const found = await paste(`what is in ${shot}?`, [shot]);
    assert("images" in found && found.images.length === 1);
    assertEquals(found.images[0]!.name, `${dir}/My Shot.png`);
    // The same path typed, not pasted, is text.
    assertEquals(await paste(`what is in ${shot}?`, []), { images: [] });
    const refused = await paste(`look at ${dir}/evil.png`, [`${dir}/evil.png`]);
    assert(
      "refused" in refused && refused.refused.includes("is not a PNG, JPEG, GIF or WebP image"),
    );
    const big = await paste(`look at ${dir}/My\\ Shot.png`, [`${dir}/My\\ Shot.png`], 10);
    assert("refused" in big && big.refused.includes("image_max_size"));
    const prose = await paste("see /usr/share/none.png for details", ["/usr/share/none.png"]);
    assertEquals(prose, { images: [] });
    // --deny-read refuses a pasted file: the message is not sent.
    const denied = await paste(`${dir}/secret.png`, [`${dir}/secret.png`]);
    assert("refused" in denied && denied.refused.includes("--deny-read"), JSON.stringify(denied));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
