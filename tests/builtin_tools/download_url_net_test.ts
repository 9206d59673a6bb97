// Attack: `--deny-net` names a host, and download_url reaches it anyway through a redirect
// from an allowed URL or through another spelling of the host (localhost, an IPv4-mapped IPv6
// address, decimal or hex IPv4, a trailing dot). Real loopback servers, the real CLI and
// sandbox worker: every hop and every spelling must meet the deny list.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cliSandbox } from "../helpers/run_cli.ts";

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

Deno.test("download_url meets --deny-net=127.0.0.1 under every spelling of the host", async () => {
  await using hosts = servers();
  for (
    const host of [
      "localhost",
      "localhost.",
      "LOCALHOST",
      "[::ffff:127.0.0.1]",
      "2130706433",
      "0x7f.1",
      "127.1",
      "0.0.0.0",
    ]
  ) {
    const { run, result } = await download(
      ["--allow-net", "--deny-net=127.0.0.1"],
      `http://${host}:${hosts.b}/`,
    );
    assert(!run.stdout.includes(SECRET), `${host}: ${run.stdout}`);
    assertEquals(result.error_type, "permission_denied", `${host}: ${run.stdout}${run.stderr}`);
  }
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
