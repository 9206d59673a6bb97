import { deepStrictEqual as assertEquals, rejects } from "node:assert/strict";
import {
  canonicalHost,
  deniedBy,
  fetchCheckingHops,
  urlTarget,
} from "../../../src/sandbox/workers/net_target.ts";

Deno.test("canonicalHost() gives one spelling for each way to write an address", () => {
  for (
    const [written, canonical] of [
      ["127.0.0.1", "127.0.0.1"],
      ["2130706433", "127.0.0.1"],
      ["0x7f.1", "127.0.0.1"],
      ["0177.0.0.1", "127.0.0.1"],
      ["127.1", "127.0.0.1"],
      ["[::ffff:127.0.0.1]", "127.0.0.1"],
      ["::ffff:7f00:1", "127.0.0.1"],
      ["[0:0:0:0:0:0:0:1]", "::1"],
      ["Example.COM.", "example.com"],
    ] as const
  ) {
    assertEquals(canonicalHost(written), canonical, written);
  }
});

Deno.test("deniedBy() compares addresses, resolving names, and honours entry ports", async () => {
  const names: Record<string, string[]> = {
    "db.internal": ["10.0.0.5"],
    "alias.test": ["10.0.0.5"],
  };
  const lookup = (host: string) => Promise.resolve(names[host] ?? []);
  const denied = (hostname: string, port: number, deny: string[]) =>
    deniedBy({ hostname, port }, deny, { lookup });
  assertEquals(await denied("localhost", 80, ["127.0.0.1"]), "127.0.0.1");
  assertEquals(await denied("0.0.0.0", 80, ["localhost"]), "localhost");
  assertEquals(await denied("[::1]", 80, ["127.0.0.1"]), "127.0.0.1");
  assertEquals(await denied("alias.test", 5432, ["db.internal:5432"]), "db.internal:5432");
  assertEquals(await denied("10.0.0.5", 5432, ["db.internal"]), "db.internal");
  assertEquals(await denied("127.0.0.1", 81, ["127.0.0.1:80"]), undefined);
  assertEquals(await denied("[::1]", 80, ["[::1]:80"]), "[::1]:80");
  assertEquals(await denied("example.com", 443, ["127.0.0.1"]), undefined);
});

Deno.test("fetchCheckingHops() checks a redirect's target before requesting it", async () => {
  let reachedB = false;
  const b = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
    reachedB = true;
    return new Response("b");
  });
  const a = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => Response.redirect(`http://localhost:${b.addr.port}/`, 307),
  );
  try {
    const check = async (url: URL) => {
      const entry = await deniedBy(urlTarget(url), [`127.0.0.1:${b.addr.port}`]);
      if (entry !== undefined) throw new Deno.errors.NotCapable(`denied by ${entry}`);
    };
    await rejects(
      fetchCheckingHops(
        fetch,
        `http://127.0.0.1:${a.addr.port}/`,
        { method: "POST", body: "x" },
        check,
      ),
      Deno.errors.NotCapable,
    );
    assertEquals(reachedB, false);
  } finally {
    await Promise.all([a.shutdown(), b.shutdown()]);
  }
});
