import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  callResult,
  CANCELLED_BEFORE_START,
  replyEnd,
  replyOrStop,
  stoppedEnd,
  within,
} from "../../../src/sandbox/workers/call_end.ts";
import type { Reply } from "../../../src/sandbox/workers/sandbox_worker.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

const NEVER = new Promise<Reply>(() => {});
const DONE: Reply = { type: "done", id: 1, output: "ok", state: { tasks: [] } };

Deno.test("replyOrStop() returns the reply, the timeout, or the user's abort, whichever is first", async () => {
  assertEquals(await replyOrStop(Promise.resolve(DONE), 1000), DONE);
  assertEquals(await replyOrStop(NEVER, 10), "timeout");
  const controller = new AbortController();
  const waiting = replyOrStop(NEVER, 60_000, controller.signal);
  controller.abort();
  assertEquals(await waiting, "cancelled");
});

Deno.test("within() gives a late answer its grace period and no more", async () => {
  assertEquals(await within(Promise.resolve(DONE), 50), DONE);
  const started = performance.now();
  assertEquals(await within(NEVER, 20), undefined);
  assert(performance.now() - started < 5000);
});

Deno.test("replyEnd() reads done, failed and lost replies and names an unexpected one", () => {
  assertEquals(
    replyEnd("ls", { ...DONE, display: "1 file", final: true, outputBytes: 9 }),
    { data: "ok", outputBytes: 9, state: { tasks: [] }, display: "1 file", final: true },
  );
  assertEquals(
    replyEnd("ls", { type: "failed", id: 1, errorType: "not_found", message: "No such folder" }),
    { errorType: "not_found", message: "No such folder" },
  );
  assertEquals(replyEnd("ls", { type: "lost", reason: "out of memory" }), {
    errorType: "internal_error",
    message: 'Tool "ls" crashed: out of memory. Its sandbox was restarted',
  });
  assertEquals(replyEnd("ls", { type: "importing", path: "/p/ls.ts" }), {
    errorType: "internal_error",
    message: 'Unexpected reply "importing"',
  });
});

Deno.test("stoppedEnd() says why the call stopped and keeps the state of a late answer", () => {
  assertEquals(stoppedEnd("grep", { why: "timeout", timeoutMs: 1500, late: undefined }), {
    errorType: "timeout",
    message: 'Tool "grep" did not finish within 1.5 s and was stopped: try a smaller request',
  });
  assertEquals(stoppedEnd("grep", { why: "cancelled", timeoutMs: 1500, late: DONE }), {
    errorType: "cancelled",
    message: "Cancelled by the user",
    state: { tasks: [] },
  });
  assertEquals(CANCELLED_BEFORE_START.errorType, "cancelled");
});

Deno.test("callResult() builds the result, keeps the state when the tool left it, and saves a cut output", async () => {
  await using dir = await tempDir();
  const before = { tasks: ["a"] };
  const failed = await callResult("ls", { errorType: "timeout", message: "Stopped" }, {
    started: performance.now(),
    state: before,
    limits: {},
  });
  assertEquals([failed.result.success, failed.result.error_message, failed.state], [
    false,
    "Stopped",
    before,
  ]);
  const long = "x".repeat(500);
  const cut = await callResult("run_command", { data: long, outputBytes: 9000, final: true }, {
    started: performance.now(),
    state: before,
    limits: { dataDir: dir.path, toolOutputLimit: 100 },
  });
  const truncated = cut.result.metadata.truncated;
  assertEquals([truncated?.unit, truncated?.output_bytes, cut.final], ["chars", 9000, true]);
  const saved = truncated?.full_output_path ?? "";
  assert(saved.startsWith(join(dir.path, "tool_outputs")), saved);
  assertEquals(await Deno.readTextFile(saved), long);
});
