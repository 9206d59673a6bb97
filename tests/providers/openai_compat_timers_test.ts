// A streamed request never touches the global timers: the first setTimeout (or clearTimeout)
// of a Deno 2.9 process loads node:timers, about 7 ms that every -p run paid before its
// request; the watchdog and the header deadline use quiet timers (src/platform/quiet_timer.ts).

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/request_without_timers.ts", import.meta.url));

Deno.test("a streamed request through openai_compat calls no global timer function", async () => {
  await using server = startFakeLlmServer([reply().text("Done.", { chunks: 3 })]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", FIXTURE, server.baseUrl],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals(result, { text: "Done.", stopReason: "stop", calls: {} });
});
