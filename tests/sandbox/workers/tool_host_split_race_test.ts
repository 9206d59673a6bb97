// A plugin whose read list is split around a --deny-read path gets a fresh worker once a split
// folder changes (allow_list_split.ts). The call that made the change (write_file) ends and the
// host replaces the idle worker at once; a call of the plugin that had just been handed that
// worker, but not yet sent to it, must run on the fresh one instead of failing with "the
// tool's worker has stopped" (seen under -R, where /tmp and the home folder are split).

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

const PLUGIN = `export default ({ z, defineTool }) => defineTool({
  name: "echo_plugin",
  description: "Echoes.",
  risk: "safe",
  parameters: z.object({ n: z.number() }),
  permissions: { read: ["."] },
  run: ({ n }) => ({ output: "echo " + n }),
});
`;

Deno.test("a plugin call racing a change of its split folder runs on the fresh worker", async () => {
  await using s = await sandboxHost(
    ({ workspace }) => [
      `--allow-read=${workspace}`,
      `--allow-write=${workspace}`,
      `--deny-read=${workspace}/.env`,
    ],
    {
      builtins: ["write_file"],
      plugins: { "echo_plugin.ts": PLUGIN },
      files: ({ workspace }) => ({ [join(workspace, ".env")]: "K=1\n" }),
    },
  );
  assertEquals(s.errors, []);
  const failures: string[] = [];
  for (let n = 0; n < 8; n++) {
    assertEquals((await s.call("echo_plugin", { n })).data, `echo ${n}`);
    const [written, echoed] = await Promise.all([
      s.call("write_file", { path: `new-${n}.txt`, content: "x" }),
      s.call("echo_plugin", { n }),
    ]);
    assertEquals(written.success, true, JSON.stringify(written));
    if (echoed.data !== `echo ${n}`) failures.push(`${n}: ${JSON.stringify(echoed)}`);
  }
  assertEquals(failures, []);
});
