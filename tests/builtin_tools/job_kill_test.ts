import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import runCommand from "../../plugins/run_command.ts";
import jobKill from "../../plugins/job_kill.ts";
import jobOutput from "../../plugins/job_output.ts";
import { makeToolContext, runTool } from "../helpers/tool_context.ts";
import {
  processesWith,
  uniqueSleep,
  waitUntilGone,
  waitUntilRunning,
} from "../helpers/processes.ts";

/**
 * A command that leaves a process of every shape behind, each a `sleep` with its own unique
 * duration (found from outside by it): `&`, `nohup`, `setsid`, a double fork, and a server
 * holding a port.
 */
export function processShapes(): { command: string; markers: string[] } {
  const [bg, nohup, setsid, fork, server] = [0, 1, 2, 3, 4].map(() => uniqueSleep());
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  return {
    command: [
      `sleep ${bg} &`,
      `nohup sleep ${nohup} > /dev/null 2>&1 &`,
      `setsid sleep ${setsid} > /dev/null 2>&1 &`,
      `(sleep ${fork} > /dev/null 2>&1 &) &`,
      `python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1", ${port})); ` +
      `s.listen(); time.sleep(${server})' &`,
      "echo ready; wait",
    ].join("\n"),
    markers: [bg, nohup, setsid, fork, server].map((s) => `sleep ${s}`).slice(0, 4).concat(
      `time.sleep(${server})`,
    ),
  };
}

const linux = Deno.build.os === "linux";

Deno.test({
  name: "job_kill ends &, nohup, setsid, a double fork and a server holding a port",
  ignore: !linux,
  fn: async () => {
    await using ctx = await makeToolContext();
    assert(ctx.commands.confined, ctx.commands.summary);
    const shapes = processShapes();
    const { output } = await runTool(
      runCommand,
      { command: shapes.command, background: true },
      ctx,
    );
    assert(output.includes("j1"), output);
    for (const marker of shapes.markers) assert(await waitUntilRunning(marker, 10_000), marker);
    const killed = await runTool(jobKill, { id: "j1" }, ctx);
    assert(killed.output.startsWith("Stopped j1 and every process it started"), killed.output);
    // Signalled, each is gone within moments (a loaded machine may not have run its exit yet
    // when the reply comes); one still there after 2 s survived, and its state is shown.
    for (const marker of shapes.markers) {
      const gone = await waitUntilGone(marker, 2000);
      const left = processesWith(marker).map((pid) => {
        try {
          return Deno.readTextFileSync(`/proc/${pid}/stat`);
        } catch {
          return `${pid} (gone)`;
        }
      });
      assert(gone, `${marker} survived job_kill: ${left.join("; ")}`);
    }
    const after = await runTool(jobOutput, { id: "j1" }, ctx);
    assert(after.output.includes("killed after"), after.output);
  },
});

Deno.test({
  name: "closing the jobs (the session's end) stops every job and names them",
  ignore: !linux,
  fn: async () => {
    await using ctx = await makeToolContext();
    const shapes = processShapes();
    await runTool(runCommand, { command: shapes.command, background: true }, ctx);
    await runTool(runCommand, { command: "echo done", background: true }, ctx);
    for (const marker of shapes.markers) assert(await waitUntilRunning(marker, 10_000), marker);
    let read = "";
    for (let i = 0; i < 20 && !read.includes("exited"); i++) {
      read = (await runTool(jobOutput, { id: "j2", wait_seconds: 1 }, ctx)).output;
    }
    const stopped = await ctx.jobs.close();
    assertEquals(stopped.map((job) => job.id), ["j1"]);
    for (const marker of shapes.markers) assert(await waitUntilGone(marker, 2000), marker);
    const refused = await runTool(runCommand, { command: "true", background: true }, ctx).then(
      () => "ran",
      (error: Error) => error.message,
    );
    assertEquals(refused, "The session is ending");
  },
});
