// isIPv4 and isIPv6 (src/platform/ip_address.ts) answer as node:net's do, on crafted strings
// and on many random ones built from the characters addresses are made of.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import * as net from "node:net";
import { isIPv4, isIPv6 } from "../../src/platform/ip_address.ts";

const CRAFTED = [
  "",
  "0.0.0.0",
  "127.0.0.1",
  "255.255.255.255",
  "256.1.1.1",
  "01.1.1.1",
  "1.1.1",
  "1.1.1.1.",
  ".1.1.1.1",
  "1..1.1",
  "1.1.1.1 ",
  " 1.1.1.1",
  "1.1.1.1%eth0",
  "::",
  "::1",
  "1::",
  ":::",
  "1:::2",
  "1::2::3",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6:7::",
  "::2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7",
  "1:2:3:4::5:6:7",
  "1:2:3:4::5:6:7:8",
  ":1:2:3:4:5:6:7",
  "1:2:3:4:5:6:7:",
  "12345::",
  "g::1",
  "FFFF::ffff",
  "::ffff:127.0.0.1",
  "::127.0.0.1",
  "1:2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6:7:1.2.3.4",
  "1:2:3:4:5::1.2.3.4",
  "1:2:3:4:5:6::1.2.3.4",
  "::1.2.3.4:5",
  "1.2.3.4::",
  "::01.2.3.4",
  "fe80::1%eth0",
  "fe80::1%",
  "fe80::1%eth 0",
  "fe80::1%1%2",
  "::%x",
  "[::1]",
  "localhost",
];

/** Random strings made of address pieces (groups, colons, IPv4 parts, zones), seeded. */
function randomStrings(count: number): string[] {
  const pieces = ["0", "1", "ff", "abcd", "12345", "g1", ":", ":", "::", ".", "1", "255", "256"];
  const zones = ["", "", "", "%eth0", "%", "%a b"];
  let seed = 45;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    for (let j = 1 + next(16); j > 0; j--) text += pieces[next(pieces.length)];
    out.push(text + zones[next(zones.length)]);
  }
  return out;
}

Deno.test("isIPv4 and isIPv6 answer as node:net's do", () => {
  const valid = { v4: 0, v6: 0 };
  for (const text of [...CRAFTED, ...randomStrings(50_000)]) {
    assertEquals([text, isIPv4(text)], [text, net.isIPv4(text)]);
    assertEquals([text, isIPv6(text)], [text, net.isIPv6(text)]);
    if (net.isIPv4(text)) valid.v4++;
    if (net.isIPv6(text)) valid.v6++;
  }
  // The strings hold enough addresses for the comparison to mean something.
  if (valid.v4 < 3 || valid.v6 < 500) throw new Error(JSON.stringify(valid));
});
