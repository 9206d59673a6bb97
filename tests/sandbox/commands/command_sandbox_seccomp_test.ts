// With --allow-net a command shares the host's network namespace, where abstract Unix sockets
// live (X11's, D-Bus's): no mount hides them (issue 26, item 10). bubblewrap's seccomp filter
// refuses Unix sockets then, while TCP still works. Needs bubblewrap and perl (in Debian's
// essential set).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import net from "node:net";
import { sandboxHost } from "../../helpers/sandbox_host.ts";

const linux = Deno.build.os === "linux";
const perl = linux && (() => {
  try {
    return Deno.statSync("/usr/bin/perl").isFile;
  } catch {
    return false;
  }
})();

/** An abstract Unix socket on the host that greets whoever connects. */
async function abstractServer(): Promise<{ name: string; close(): Promise<void> }> {
  const name = `harness-test-${crypto.randomUUID()}`;
  const server = net.createServer((socket) => socket.end("hello-from-host\n"));
  await new Promise<void>((ready) => server.listen(`\0${name}`, ready));
  return { name, close: () => new Promise((done) => server.close(() => done())) };
}

Deno.test({
  name: "with --allow-net a command cannot reach the host's abstract Unix sockets, only TCP",
  ignore: !perl,
  async fn() {
    const unix = await abstractServer();
    const tcp = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const tcpPort = (tcp.addr as Deno.NetAddr).port;
    const accepting = (async () => {
      for await (const conn of tcp) {
        await conn.write(new TextEncoder().encode("hello-over-tcp\n"));
        conn.close();
      }
    })();
    try {
      await using s = await sandboxHost(({ workspace }) => [
        `--allow-read=${workspace}`,
        "--allow-run",
        "--allow-net",
      ]);
      const connectUnix = `perl -MSocket -e 'socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die ` +
        `"socket: $!\\n"; connect($s, pack_sockaddr_un("\\0${unix.name}")) or die "connect: ` +
        `$!\\n"; print scalar <$s>'`;
      const connectTcp = `perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(` +
        `"127.0.0.1:${tcpPort}") or die "tcp: $!\\n"; print scalar <$s>'`;
      const result = await s.call("run_command", { command: `${connectTcp}; ${connectUnix}` });
      const data = String(result.data);
      assertEquals(result.success, true, JSON.stringify(result));
      assert(!data.includes("hello-from-host"), data);
      assert(data.includes("socket: Address family not supported"), data);
      assert(data.includes("hello-over-tcp"), data);
      assert(data.includes("refuses Unix sockets"), data);
    } finally {
      tcp.close();
      await accepting.catch(() => {});
      await unix.close();
    }
  },
});
