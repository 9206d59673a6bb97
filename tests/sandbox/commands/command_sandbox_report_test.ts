// The line a command's result gets when the sandbox hid what it looked for: a --deny-read path,
// or one of harness's own hidden folders (its data folder, its config folder but for skills/
// and plugins/), each with what hides it.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { explainBlocked } from "../../../src/sandbox/commands/command_sandbox_report.ts";
import { emptyGrants } from "../../../src/sandbox/grants/grants.ts";
import type { CommandSandbox } from "../../../src/sandbox/commands/command_sandbox.ts";
import { harnessHiddenFolders } from "../../../src/gate/protected_set.ts";

const sandbox: CommandSandbox = {
  mode: "auto",
  confinement: { kind: "bwrap", program: "bwrap" },
  env: {},
  protection: {
    roots: ["/w"],
    folders: [],
    writableGit: false,
    hidden: harnessHiddenFolders({ config: "/h/.config/harness", data: "/h/.local/share/harness" }),
  },
};

Deno.test("explainBlocked() names harness's hidden config and data folders", () => {
  const grants = emptyGrants();
  grants.allow.read = true;
  const config = explainBlocked(
    "cat: /h/.config/harness/config.jsonc: No such file or directory",
    { sandbox, grants, cwd: "/w" },
  );
  assert(config?.includes('hides "/h/.config/harness/config.jsonc": harness\'s config'), config);
  const data = explainBlocked(
    "ls: cannot access '/h/.local/share/harness/harness.db': No such file or directory",
    { sandbox, grants, cwd: "/w" },
  );
  assert(data?.includes("harness's data folder"), data);
  // What the config folder shows is not explained as hidden.
  assertEquals(
    explainBlocked("cat: /h/.config/harness/skills/x/SKILL.md: No such file or directory", {
      sandbox,
      grants,
      cwd: "/w",
    }),
    undefined,
  );
});
