// A plugin's read list under -R leaves out harness's hidden folders (Deno itself then refuses
// them, node:fs included) but keeps what they show: the user's skills and plugins, this
// workspace's outputs, still without a --deny-read path inside them.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { splitAllowList } from "../../../src/sandbox/workers/allow_list_split.ts";
import { noPermissions } from "../../../src/sandbox/grants/effective_permissions.ts";
import { harnessHiddenFolders } from "../../../src/gate/protected_set.ts";

Deno.test("splitAllowList() leaves out harness's config folder but its skills and plugins", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const config = join(root, "cfg", "harness");
    for (const folder of ["plugins", "skills/a", "skills/b"]) {
      await Deno.mkdir(join(config, folder), { recursive: true });
    }
    await Deno.writeTextFile(join(config, "config.jsonc"), '{ "api_key": "k" }');
    await Deno.writeTextFile(join(config, "trust.json"), "{}");
    await Deno.mkdir(join(root, "work"));
    const hidden = harnessHiddenFolders({ config, data: join(root, "data") });
    const { permissions } = splitAllowList({
      permissions: { ...noPermissions(), read: [root] },
      guard: { read: [join(config, "skills", "b")] },
    }, hidden);
    const read = (permissions.read as string[]).map((path) => path.slice(root.length)).sort();
    assertEquals(read, ["/cfg/harness/plugins", "/cfg/harness/skills/a", "/work"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
