// Attack: `--deny-net` names a host, and download_url reaches it anyway through a redirect
// from an allowed URL or through another spelling of the host (localhost, an IPv4-mapped IPv6
// address, decimal or hex IPv4, a trailing dot). Real loopback servers, the real CLI and
// sandbox worker: every hop and every spelling must meet the deny list.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const SECRET = "B-SECRET-BODY";

/** Server B holds the secret; server A redirects every request to B. */
function servers() {
  const b = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => new Response(SECRET, { headers: { "content-type": "text/plain" } }),
  );
  const a = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    (request) =>
      new URL(request.url).pathname === "/hello"
        ? new Response("hello from A", { headers: { "content-type": "text/plain" } })
        : Response.redirect(`http://127.0.0.1:${b.addr.port}/secret`, 302),
  );
  return {
    a: a.addr.port,
    b: b.addr.port,
    async [Symbol.asyncDispose]() {
      await Promise.all([a.shutdown(), b.shutdown()]);
    },
  };
}

async function download(flags: string[], url: string) {
  await using sandbox = await cliSandbox();
  const run = await sandbox.run([
    ...flags,
    "--yes",
    "tool",
    "download_url",
    JSON.stringify({ url }),
  ]);
  return { run, result: JSON.parse(run.stdout) as { success: boolean; error_type: string } };
}

Deno.test("download_url checks every redirect hop against --deny-net", async () => {
  await using hosts = servers();
  const { run, result } = await download(
    ["--allow-net", `--deny-net=127.0.0.1:${hosts.b}`],
    `http://127.0.0.1:${hosts.a}/`,
  );
  assert(!run.stdout.includes(SECRET), run.stdout);
  assertEquals(result.error_type, "permission_denied", run.stdout + run.stderr);
});

Deno.test("download_url checks every redirect hop against an --allow-net list", async () => {
  await using hosts = servers();
  const { run, result } = await download(
    [`--allow-net=127.0.0.1:${hosts.a}`],
    `http://127.0.0.1:${hosts.a}/`,
  );
  assert(!run.stdout.includes(SECRET), run.stdout);
  assertEquals(result.error_type, "permission_denied", run.stdout + run.stderr);
});

const SPELLINGS = [
  "localhost",
  "localhost.",
  "LOCALHOST",
  "[::ffff:127.0.0.1]",
  "2130706433",
  "0x7f.1",
  "127.1",
  "0.0.0.0",
];

// One harness run asks for all eight in one message (the same CLI flags and sandbox worker as
// `harness tool`, one process instead of eight); each call's result is checked on its own.
Deno.test("download_url meets --deny-net=127.0.0.1 under every spelling of the host", async () => {
  await using hosts = servers();
  await using sandbox = await cliSandbox();
  const calls = reply();
  for (const host of SPELLINGS) {
    calls.toolCall("download_url", { url: `http://${host}:${hosts.b}/` });
  }
  await using model = startFakeLlmServer([calls, reply().text("done")]);
  const run = await sandbox.run([
    "-p",
    "fetch them",
    "--base-url",
    model.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--allow-net",
    "--deny-net=127.0.0.1",
    "--yes",
  ]);
  assertEquals(run.code, 0, run.stdout + run.stderr);
  const results = lastJsonLine(run.stdout).tool_calls as {
    arguments: { url: string };
    result: { success: boolean; error_type: string };
  }[];
  assertEquals(
    results.map((call) => call.arguments.url),
    SPELLINGS.map((host) => `http://${host}:${hosts.b}/`),
  );
  for (const [i, host] of SPELLINGS.entries()) {
    assertEquals(
      results[i]?.result.error_type,
      "permission_denied",
      `${host}: ${run.stdout}${run.stderr}`,
    );
  }
  assert(!run.stdout.includes(SECRET), run.stdout);
  // Nor did the secret reach the model in a tool result.
  assert(!JSON.stringify(model.requests).includes(SECRET), JSON.stringify(model.requests));
});

Deno.test("download_url meets --deny-net=localhost when the URL gives the address", async () => {
  await using hosts = servers();
  const { run, result } = await download(
    ["--allow-net", "--deny-net=localhost"],
    `http://127.0.0.1:${hosts.b}/`,
  );
  assert(!run.stdout.includes(SECRET), run.stdout);
  assertEquals(result.error_type, "permission_denied", run.stdout + run.stderr);
});

Deno.test("download_url follows redirects the grants allow and says where it ended", async () => {
  await using hosts = servers();
  const { run, result } = await download(
    ["--allow-net", "--deny-net=192.0.2.1"],
    `http://127.0.0.1:${hosts.a}/`,
  );
  assert(result.success, run.stdout + run.stderr);
  assert(run.stdout.includes(SECRET), run.stdout);
  assert(run.stdout.includes(`redirected to http://127.0.0.1:${hosts.b}/secret`), run.stdout);
});
