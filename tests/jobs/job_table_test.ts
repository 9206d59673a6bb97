import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { JobTable } from "../../src/jobs/job_table.ts";
import type { JobSummary } from "../../src/jobs/job_control.ts";
import { jobNews } from "../../src/jobs/job_notes.ts";
import { makeToolContext } from "../helpers/tool_context.ts";

const unix = Deno.build.os !== "windows";

/** A table over the tool context's command sandbox, telling `changes` what it reports. */
async function table(changes: JobSummary[]) {
  const ctx = await makeToolContext();
  const jobs = new JobTable({
    spawn: (request) => Promise.resolve(ctx.commands.spawn(request.program, request)),
    logDir: join(ctx.dataDir, "logs"),
    backgroundAfterMs: 60_000,
    onChange: (job) => changes.push(job),
  });
  return {
    ctx,
    jobs,
    async [Symbol.asyncDispose]() {
      await jobs.close();
      await ctx[Symbol.asyncDispose]();
    },
  };
}

Deno.test({
  name: "JobTable.takeNews() tells a background job's end once, with its exit code",
  ignore: !unix,
  fn: async () => {
    const changes: JobSummary[] = [];
    await using t = await table(changes);
    const started = await t.jobs.run(
      { command: "echo bye; exit 3", cwd: t.ctx.workspace, background: true, limit: 1000 },
    );
    assertEquals(started.kind === "background" && started.id, "j1");
    while (changes.length === 0) await new Promise((settle) => setTimeout(settle, 20));
    assertEquals(changes.map((job) => [job.id, job.state, job.status?.code]), [[
      "j1",
      "exited",
      3,
    ]]);
    const news = t.jobs.takeNews();
    assert(jobNews(news)?.includes("j1 exited 3 after"), jobNews(news));
    assert(jobNews(news)?.includes("(4 B unread); job_output(id) reads the rest"), jobNews(news));
    assertEquals(t.jobs.takeNews(), []);
  },
});

Deno.test({
  name: "JobTable.run() waits for a foreground command and forgets it once it is done",
  ignore: !unix,
  fn: async () => {
    await using t = await table([]);
    const outcome = await t.jobs.run(
      { command: "printf 'a\\nb'", cwd: t.ctx.workspace, background: false, limit: 1000 },
    );
    assert(outcome.kind === "exited", JSON.stringify(outcome));
    assertEquals([outcome.text, outcome.status.code, outcome.bytes], ["a\nb", 0, 3]);
    assertEquals(t.jobs.summaries(), []);
    // Nothing was cut, so no log file is left behind.
    assertEquals(await Array.fromAsync(Deno.readDir(t.ctx.dataDir)).catch(() => []), []);
  },
});

Deno.test({
  name: "JobTable.scope() keeps each session's jobs its own: ids, output, kill, list and news",
  ignore: !unix,
  fn: async () => {
    const changes: JobSummary[] = [];
    await using t = await table(changes);
    const a = t.jobs.scope("a");
    const b = t.jobs.scope("b");
    assert(t.jobs.scope("a") === a, "one scope per name");
    const run = (scope: typeof a, command: string) =>
      scope.run({ command, cwd: t.ctx.workspace, background: true, limit: 1000 }, {});
    assertEquals((await run(a, "echo from-a; exit 0")).kind === "background", true);
    const other = await run(b, "sleep 30");
    assertEquals(other.kind === "background" && other.id, "j1");
    assertEquals(a.summaries().map((job) => job.command), ["echo from-a; exit 0"]);
    const read = await b.output("j1", { limit: 1000, waitMs: 0 });
    assert(!("unknown" in read) && read.job.command === "sleep 30", JSON.stringify(read));
    while (changes.length === 0) await new Promise((settle) => setTimeout(settle, 20));
    assertEquals(b.takeNews(), [], "a's news is not b's");
    assertEquals(t.jobs.takeNews(), [], "nor the default session's");
    assertEquals(a.takeNews().map((job) => job.id), ["j1"]);
    assertEquals(await t.jobs.kill("j1"), {
      unknown: 'No job "j1": no job was started. Call job_list to see them',
    });
    assertEquals(await t.jobs.list(), []);
    const killed = await b.kill("j1");
    assert(!("unknown" in killed) && killed.wasRunning, JSON.stringify(killed));
  },
});
