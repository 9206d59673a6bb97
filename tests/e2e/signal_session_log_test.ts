// A session ended by SIGTERM or SIGHUP while a command runs is complete on disk: the running
// call gets its `interrupted` result before `session_ended`, so a session that is never
// resumed has no call without a result (resume used to be what added it).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { processesWith, uniqueSleep, waitUntilRunning } from "../helpers/processes.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { defaultSessionDatabasePath } from "../../src/sessions/open_session_store.ts";

for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  Deno.test({
    name: `${signal} during a command logs the call's interrupted result before session_ended`,
    ignore: Deno.build.os !== "linux",
    async fn() {
      await using sandbox = await cliSandbox();
      const sleep = uniqueSleep();
      await using server = startFakeLlmServer([
        reply().toolCall("run_command", { command: `sleep ${sleep}` }),
        reply().text("done"),
      ]);
      const child = sandbox.spawn([
        "--base-url",
        server.baseUrl,
        "--model",
        "m",
        "--yes",
        "--allow-run",
        "-R",
      ]);
      const stdin = child.stdin.getWriter();
      try {
        await stdin.write(new TextEncoder().encode("sleep please\n"));
        assert(await waitUntilRunning(`sleep ${sleep}`), "the command did not start");
        child.kill(signal);
        const out = await child.output();
        assert(out.code !== 0, new TextDecoder().decode(out.stderr));
      } finally {
        for (const pid of processesWith(`sleep ${sleep}`)) Deno.kill(pid, "SIGKILL");
        await stdin.close().catch(() => {});
      }
      const db = new DatabaseSync(defaultSessionDatabasePath(sandbox.env), { readOnly: true });
      try {
        const events = db.prepare("SELECT type, payload FROM events ORDER BY seq").all() as {
          type: string;
          payload: string;
        }[];
        const types = events.map((event) => event.type);
        const call = types.indexOf("tool_call_requested");
        const result = types.indexOf("tool_call_finished");
        const ended = types.indexOf("session_ended");
        assert(call !== -1 && ended !== -1, types.join(" "));
        assert(result > call && result < ended, `result after session_ended: ${types.join(" ")}`);
        assertEquals(types.filter((type) => type === "tool_call_finished").length, 1);
        const payload = JSON.parse(events[result]!.payload);
        assertEquals(payload.result.error_type, "interrupted", events[result]!.payload);
      } finally {
        db.close();
      }
    },
  });
}
