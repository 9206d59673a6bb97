// web_search end to end: not offered (and nothing searches) without an engine; with one, the
// model's search reaches the loopback SearXNG without --allow-net. In a network namespace whose
// only way out is a counted interface, a whole run sends 0 packets without an engine, and the
// same run with an engine set sends some (the counter works).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, MAIN } from "../helpers/run_cli.ts";
import { startFakeSearxng } from "../helpers/fake_searxng.ts";

const toolNames = (request: { tools?: unknown }) =>
  ((request.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);

Deno.test("web_search is offered only with an engine, and searches it without --allow-net", async () => {
  await using sandbox = await cliSandbox();
  const unknown = await sandbox.run(["tool", "web_search", '{"query":"x"}']);
  assertEquals(unknown.code, 2);
  match(unknown.stderr, /Unknown tool "web_search"/);

  await using searxng = startFakeSearxng({ results: 3 });
  await using server = startFakeLlmServer([
    reply().text("No search here."),
    reply().toolCall("web_search", { query: "deno sandbox" }),
    reply().text("Found three."),
  ]);
  const base = ["--base-url", server.baseUrl, "--model", "m", "--yes"];
  const without = await sandbox.run(["-p", "search", ...base]);
  assertEquals(without.code, 0, without.stderr);
  assert(!toolNames(server.requests[0]!).includes("web_search"));
  assertEquals(searxng.requests.length, 0);

  const withEngine = await sandbox.run(["-p", "search", ...base, "--web-search-url", searxng.url]);
  assertEquals(withEngine.code, 0, withEngine.stderr);
  assertEquals(withEngine.stdout, "Found three.\n");
  assert(toolNames(server.requests[1]!).includes("web_search"));
  assertEquals(searxng.requests[0]?.searchParams.get("q"), "deno sandbox");
  const result = String(server.requests[2]!.messages.at(-1)?.content);
  match(result, /3 results for \\"deno sandbox\\"/);
  match(result, /UNTRUSTED/);
});

/** Whether this machine can make network namespaces with a veth pair (root, unshare, ip). */
async function canMakeNetns(): Promise<boolean> {
  try {
    const probe = await new Deno.Command("unshare", {
      args: ["-n", "sh", "-c", "ip link add v0 type veth peer name v1"],
      stdout: "null",
      stderr: "null",
    }).output();
    return probe.success;
  } catch {
    return false;
  }
}

const NETNS = await canMakeNetns();

/**
 * Runs `harness -p` in a new network namespace whose only way out is the veth v0 (default
 * route), beside a model server on its loopback, and returns v0's transmitted packets during
 * the run.
 */
async function packetsOut(env: Record<string, string>, cwd: string, extra: string[]) {
  const server = fileURLToPath(new URL("../fixtures/netns_model_server.ts", import.meta.url));
  const script = `
set -e
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link set lo up
ip link add v0 type veth peer name v1
ip addr add 10.9.0.1/24 dev v0
ip link set v0 up
ip link set v1 up
ip route add default via 10.9.0.254 dev v0
fifo="$(mktemp -u)"; mkfifo "$fifo"
"$DENO" run -A --cached-only "$SERVER" > "$fifo" &
server_pid=$!
read -r url < "$fifo"
tx() { awk '$1 == "v0:" { print $11 }' /proc/net/dev; }
before=$(tx)
"$DENO" run --cached-only -A --no-prompt --unstable-worker-options "$MAIN" \\
  -p 'call web_search {"query":"anything"}' --base-url "$url" --model smoke-model --yes "$@" \\
  > /dev/null 2> "$ERRORS" || true
after=$(tx)
kill "$server_pid"
echo "$before $after"
`;
  const errors = `${cwd}/netns_errors.txt`;
  const out = await new Deno.Command("unshare", {
    args: ["-n", "sh", "-c", script, "sh", ...extra],
    cwd,
    // Deno's own update check (dl.deno.land) is the dev runtime's, not harness's: the compiled
    // binary has none, so it is turned off here.
    env: {
      ...env,
      DENO_NO_UPDATE_CHECK: "1",
      DENO: Deno.execPath(),
      SERVER: server,
      MAIN,
      ERRORS: errors,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const [before, after] = text.split(" ").map(Number);
  return { sent: after! - before!, errors: await Deno.readTextFile(errors) };
}

Deno.test({
  name: "in a network namespace a run sends 0 packets without an engine, and some with one",
  ignore: !NETNS,
  async fn() {
    await using sandbox = await cliSandbox();
    const quiet = await packetsOut(sandbox.env, sandbox.cwd, []);
    assertEquals(quiet.sent, 0, quiet.errors);
    // The control: the same run with an engine beyond the namespace's only interface.
    const searching = await packetsOut(sandbox.env, sandbox.cwd, [
      "--web-search-url",
      "http://10.9.0.2:8888",
    ]);
    assert(searching.sent > 0, `no packet left with an engine set: ${searching.errors}`);
  },
});
