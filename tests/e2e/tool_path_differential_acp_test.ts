// The differential test of the tool path (tool_path_differential_test.ts) for the editor: over
// ACP, read_file, write_file and edit_file go through the editor's buffers, a sandboxed edit
// is shown as a diff, and a denied path never reaches the editor. What the session log, the
// model's requests, the editor's updates and its buffers hold must equal the fixture.
// Recorded from the old code, then again for issue 39's intended changes, each read in the
// diff of the two recordings: the editor gets the terminal's own tools (their messages;
// insert_lines through the editor too, so its buffer changes, not the disk, and no checkpoint
// records it), an edit's preview reads the buffer (for the diagnostics after it), and a
// --deny-read path is refused by the worker's guard, which says the flag that denies it.

import type { ContentBlock } from "@agentclientprotocol/sdk";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startAcpClient } from "../helpers/acp_client.ts";
import { checkRecord, modelRequests, normalise, sessionEvents } from "../helpers/session_record.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

Deno.test({
  name: "differential: the editor's files over ACP as before",
  // The fixture was recorded on Linux (the system prompt names the system).
  ignore: Deno.build.os !== "linux",
  fn: scenario,
});

async function scenario(): Promise<void> {
  await using sandbox = await cliSandbox();
  const notes = `${sandbox.cwd}/notes.txt`;
  await Deno.writeTextFile(notes, "disk alpha\n");
  await Deno.writeTextFile(`${sandbox.cwd}/b.txt`, "one\n");
  await Deno.mkdir(`${sandbox.cwd}/secret`);
  await Deno.writeTextFile(`${sandbox.cwd}/secret/key.txt`, "key\n");
  const buffers = new Map([
    [notes, "buffer alpha\r\n    beta\r\n"],
    [`${sandbox.cwd}/out.txt`, "old out\n"],
    [`${sandbox.cwd}/secret/key.txt`, "key\n"],
  ]);
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "notes.txt" }),
    reply().toolCall("read_file", { path: "notes.txt", offset: 2, limit: 1 }),
    reply().toolCall("write_file", { path: "out.txt", content: "new\n" }),
    reply().toolCall("edit_file", { path: "notes.txt", old_string: "beta", new_string: "gamma" }),
    reply().toolCall("edit_file", { path: "notes.txt", old_string: "zeta", new_string: "eta" }),
    reply().toolCall("insert_lines", { path: "b.txt", line_start: 1, new_content: "zero" }),
    reply().toolCall("read_file", { path: "secret/key.txt" }),
    reply().toolCall("write_file", { path: "secret/key.txt", content: "stolen" }),
    reply().text("Done."),
  ]);
  await using acp = startAcpClient(
    sandbox,
    [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-read=.",
      "--allow-write=.",
      `--deny-read=${sandbox.cwd}/secret`,
      `--deny-write=${sandbox.cwd}/secret`,
    ],
    { editorFiles: buffers },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", { sessionId, prompt: text("go") });
  const updates = acp.updates.map((n) => n.update).filter((u) =>
    u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"
  );
  const places = { cwd: sandbox.cwd, home: sandbox.home, servers: [server.baseUrl] };
  const ids = new Map<string, string>();
  await checkRecord(
    "acp_editor_files",
    normalise(
      {
        stopReason: done.stopReason,
        events: sessionEvents(sandbox.home),
        requests: await modelRequests(server.requests),
        updates,
        fsCalls: acp.fsCalls,
        buffers: Object.fromEntries(buffers),
        disk: {
          notes: await Deno.readTextFile(notes),
          b: await Deno.readTextFile(`${sandbox.cwd}/b.txt`),
        },
        pairingErrors: server.pairingErrors,
      },
      places,
      ids,
    ),
  );
}
