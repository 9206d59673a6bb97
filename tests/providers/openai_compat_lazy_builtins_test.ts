// A -p run's requests to a plain http: server touch neither the global timers nor fetch: Deno
// 2.9 loads both on first use (node:timers, about 7 ms, clear* included; fetch with the web
// streams it answers with, about 9 ms). The watchdog and the header deadline use quiet timers
// (src/platform/quiet_timer.ts); the probes and the stream go through http_request.ts's own
// connection.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const FIXTURE = fileURLToPath(
  new URL("../fixtures/request_without_lazy_builtins.ts", import.meta.url),
);

Deno.test("the window probes and a streamed request call no timer function and no fetch", async () => {
  await using server = startFakeLlmServer([reply().text("Done.", { chunks: 3 })], {
    routes: { "/props": { default_generation_settings: { n_ctx: 8192 } } },
  });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", FIXTURE, server.baseUrl],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals({ ...result, window: result.window?.tokens }, {
    text: "Done.",
    stopReason: "stop",
    window: 8192,
    calls: {},
  });
});
