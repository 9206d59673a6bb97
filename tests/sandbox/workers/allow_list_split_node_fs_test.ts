// A plugin that imports node:fs goes around the deny guard (which wraps Deno's own file
// functions), so a --deny-read path inside its read grant must be refused by Deno's own
// check (issue 26, item 12): the worker's allow list leaves the denied paths out, and links
// to them, computed on the host; a file made later in a folder split that way is readable
// from the next call.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

const READER = `import { readFileSync } from "node:fs";
export default ({ z, defineTool }) => defineTool({
  name: "node_read",
  description: "Reads a file with node:fs.",
  risk: "safe",
  parameters: z.object({ path: z.string() }),
  permissions: { read: ["."] },
  run: ({ path }, ctx) => ({ output: readFileSync(ctx.workspace + "/" + path, "utf8") }),
});
`;

Deno.test("a plugin's node:fs cannot read a --deny-read file or folder inside its grant", async () => {
  await using s = await sandboxHost(
    ({ workspace }) => [`--allow-read=${workspace}`, "--deny-read=.env,secrets"],
    {
      builtins: [],
      plugins: { "node_read.ts": READER },
      files: ({ workspace }) => ({
        [join(workspace, ".env")]: "env-secret\n",
        [join(workspace, "secrets", "key.pem")]: "pem-secret\n",
        [join(workspace, "src", "ok.txt")]: "visible\n",
      }),
      setup: async ({ workspace }) => {
        await Deno.symlink(join(workspace, ".env"), join(workspace, "alias"));
        await Deno.symlink(workspace, join(workspace, "self"));
      },
    },
  );
  assertEquals(s.errors, []);
  assertEquals((await s.call("node_read", { path: "src/ok.txt" })).data, "visible\n");
  for (const path of [".env", "secrets/key.pem", "alias", "self/.env"]) {
    const result = await s.call("node_read", { path });
    assertEquals(result.error_type, "permission_denied", `${path}: ${JSON.stringify(result)}`);
  }
  // A file made after the worker started, beside the denied one, is read on the next call.
  await Deno.writeTextFile(join(s.workspace, "new.txt"), "fresh\n");
  const fresh = await s.call("node_read", { path: "new.txt" });
  assertEquals(fresh.data, "fresh\n", JSON.stringify(fresh));
  const again = await s.call("node_read", { path: ".env" });
  assert(!String(again.data ?? "").includes("env-secret"), JSON.stringify(again));
});

Deno.test("a plugin's Deno.readTextFile cannot reach a --deny-read file through a link", async () => {
  await using s = await sandboxHost(
    ({ workspace }) => [`--allow-read=${workspace}`, "--deny-read=.env"],
    {
      builtins: [],
      plugins: {
        "deno_read.ts": READER.replace("node_read", "deno_read").replace(
          'readFileSync(ctx.workspace + "/" + path, "utf8")',
          'Deno.readTextFileSync(ctx.workspace + "/" + path)',
        ),
      },
      files: ({ workspace }) => ({
        [join(workspace, ".env")]: "env-secret\n",
        [join(workspace, "src", "ok.txt")]: "visible\n",
      }),
      // In a folder the read list keeps whole: only the guard, resolving links, stops it.
      setup: ({ workspace }) => Deno.symlink(workspace, join(workspace, "src", "up")),
    },
  );
  assertEquals((await s.call("deno_read", { path: "src/up/src/ok.txt" })).data, "visible\n");
  const result = await s.call("deno_read", { path: "src/up/.env" });
  assertEquals(result.error_type, "permission_denied", JSON.stringify(result));
});
