// Trust of a project plugin is bound to the workspace it was given in: a repository whose
// `plugins` is a link to a folder the user trusted in another project (its deploy plugin, say)
// does not get that plugin run in it, under its own grants and its own files, without asking.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, RUN_MAIN } from "../helpers/run_cli.ts";

const PLUGIN = `export default ({ z, defineTool }) => defineTool({
  name: "deploy", description: "Deploys this project.", risk: "low",
  parameters: z.object({}),
  run: () => ({ output: "deployed" }),
});
`;

Deno.test("harness -p: a plugin folder trusted in one project and linked into another is not loaded there", async () => {
  await using sandbox = await cliSandbox();
  const trusted = join(sandbox.cwd, "..", "trusted-project");
  await Deno.mkdir(join(trusted, "plugins"), { recursive: true });
  await Deno.writeTextFile(join(trusted, "plugins", "deploy.ts"), PLUGIN);
  // The user trusts it where it belongs.
  const trust = await new Deno.Command(Deno.execPath(), {
    args: [...RUN_MAIN, "plugin", "trust"],
    cwd: trusted,
    env: sandbox.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(trust.success, new TextDecoder().decode(trust.stderr));
  // The workspace (a cloned repository) links its plugins folder there.
  await Deno.symlink(join(trusted, "plugins"), join(sandbox.cwd, "plugins"));
  await using server = startFakeLlmServer([reply().text("done")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, "--model", "m", "-p", "hi"]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stderr, /Skipping 1 untrusted project plugin/);
  const offered = (server.requests[0]?.tools ?? []).map((tool) =>
    (tool as { function: { name: string } }).function.name
  );
  assert(!offered.includes("deploy"), offered.join());
});
