// The workspace's one flat tool set as app/ assembles it (openRunTools): the sandboxed plugins
// (built-in and --plugins), the code tools and an MCP server each hand in their entries once,
// and every entry, driven through the path app/ builds (its stages placed around the kernel's),
// keeps what its source gave it: a file tool's preview for the approval prompt, a tool's
// images, and its source's limits (the output cap, the timeout). Wrappers that re-declared the
// runner lost `preview` once; nothing wraps an entry now.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { openRunTools } from "../../src/app/run_tools.ts";
import { imageGateStage } from "../../src/app/image_gate.ts";
import { DEFAULT_SETTINGS } from "../../src/config/settings.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import { EDIT_NOTE_STAGE } from "../../src/agent/argument_edit.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";
import { EventLog, RecordingApprover } from "../helpers/loop_host.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const BASIC = fileURLToPath(new URL("../fixtures/plugins/basic/", import.meta.url));
const MCP_FIXTURE = fileURLToPath(
  new URL("../fixtures/mcp/misbehaving_server.ts", import.meta.url),
);
const DENO = Deno.execPath();
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("every entry of the run's tool set keeps its preview, images and limits", async () => {
  await using dir = await tempDir();
  const cwd = await Deno.realPath(dir.path);
  await Deno.writeTextFile(join(cwd, "a.txt"), "alpha\n");
  await Deno.writeFile(join(cwd, "shot.png"), PNG);
  const grants = parseGrantFlags(["--allow-read=.", "--allow-write=.", `--allow-run=${DENO}`], {
    cwd,
  });
  assert(grants.ok);
  const tools = await openRunTools({
    settings: {
      ...DEFAULT_SETTINGS,
      plugins: [BASIC],
      curator: "off",
      maxOutputSize: 4096,
      mcpServers: {
        bad: {
          command: DENO,
          args: ["run", "-A", "--no-prompt", MCP_FIXTURE],
          sandbox: { read: [...DENO_READ, "."], env: ["DENO_DIR"] },
        },
      },
    },
    grants: grants.value.grants,
    cwd,
    frontEnd: {
      interactive: false,
      io: { write: () => {}, readLine: () => Promise.resolve(null) },
      mcpNotice: () => {},
      approvalNote: () => {},
      outputsDir: join(cwd, ".outputs"),
    },
    provider: () => undefined,
    contextLength: () => undefined,
    server: () => Promise.resolve(undefined),
    messages: () => [],
    conversationWindow: () => undefined,
    conversationPrefix: () => undefined,
  });
  try {
    tools.mcp?.start();
    await tools.set.ready();
    const entries = tools.set.entries();
    const origin = (name: string) => entries.find((e) => e.info.name === name)?.info.origin;
    // Each source handed its entries in: built-in and --plugins tools, code tools, MCP tools.
    assertEquals(
      ["read_file", "echo", "code_map", "bad__echo"].map(origin),
      ["builtin", "flag", "builtin", "mcp"],
    );
    // The sandboxed plugins' entries carry the host's preview (the worker says whether the tool
    // has one); host-side tools change no single file and have none.
    for (const entry of entries) {
      const plugin = entry.info.source.endsWith(".ts") || entry.info.source.endsWith(".js");
      assertEquals(entry.preview !== undefined, plugin, entry.info.name);
    }

    // The approver looks at a call's diff, as the prompt does, and allows it.
    const diffs: unknown[] = [];
    const approver = new RecordingApprover(async (request) => {
      diffs.push(await request.preview?.());
      return { decision: "allow", by: "user" };
    });
    const stages = [
      ...tools.stages,
      imageGateStage({ vision: () => Promise.resolve({ sees: true }), maxBytes: 1 << 20 }),
      EDIT_NOTE_STAGE,
    ];
    const drive = (name: string, args: unknown) =>
      driveToolCall(
        { id: `c_${name}`, name, arguments: JSON.stringify(args) },
        { tools: tools.scope, approver, sink: new EventLog().sink, state: {}, stages },
        new AbortController().signal,
      );

    // Preview: the approval prompt gets the diff of what the call would write.
    await drive("write_file", { path: "a.txt", content: "beta\n" });
    assertEquals(diffs, [{ change: { path: "a.txt", before: "alpha\n", after: "beta\n" } }]);

    // Images: read_file of a picture reaches the model with it.
    const image = await drive("read_file", { path: "shot.png" });
    assertEquals([image.result?.success, image.run?.images?.length], [true, 1]);

    // Limits: each source's output cap and timeout hold.
    const big = await drive("big_output", { size: 50_000 });
    assert(big.result?.metadata.truncated, JSON.stringify(big.result?.metadata));
    const mcpBig = await drive("bad__big", {});
    assert(mcpBig.result?.metadata.truncated, JSON.stringify(mcpBig.result?.metadata));
    const hang = await drive("hang", {});
    assertEquals(hang.result?.error_type, "timeout");
  } finally {
    await tools.set.close();
  }
});
