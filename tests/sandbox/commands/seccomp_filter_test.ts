// The seccomp filter handed to bubblewrap, run through a small classic-BPF interpreter (the
// kernel test in command_sandbox_seccomp_test.ts covers only this machine's native calls): every
// architecture table, the 32-bit entry points and the x32 ABI.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { unixSocketFilter } from "../../../src/sandbox/commands/seccomp_filter.ts";

const ALLOW = 0x7fff0000;
const EAFNOSUPPORT = 0x00050000 | 97;
const ENOSYS = 0x00050000 | 38;

/** Runs `program` (struct sock_filter[]) on seccomp_data of `nr`, `arch` and `arg0`. */
function run(program: Uint8Array, nr: number, arch: number, arg0 = 0): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, nr, true);
  data.setUint32(4, arch, true);
  data.setUint32(16, arg0, true);
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length;) {
    const op = code.getUint16(pc * 8, true);
    const jt = code.getUint8(pc * 8 + 2);
    const jf = code.getUint8(pc * 8 + 3);
    const k = code.getUint32(pc * 8 + 4, true);
    if (op === 0x20) acc = data.getUint32(k, true);
    else if (op === 0x15) pc += acc === k ? jt : jf;
    else if (op === 0x35) pc += acc >= k ? jt : jf;
    else if (op === 0x06) return k;
    else throw new Error(`unexpected op ${op}`);
    pc++;
  }
  throw new Error("fell off the end");
}

const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;

Deno.test("unixSocketFilter() refuses Unix sockets and io_uring on x86_64, i386 and x32", () => {
  const p = unixSocketFilter("x86_64")!;
  assertEquals(run(p, 41, X86_64, 1), EAFNOSUPPORT); // socket(AF_UNIX)
  assertEquals(run(p, 41, X86_64, 2), ALLOW); // socket(AF_INET)
  assertEquals(run(p, 41, X86_64, 10), ALLOW); // socket(AF_INET6)
  assertEquals(run(p, 53, X86_64, 1), ALLOW); // socketpair(AF_UNIX)
  assertEquals(run(p, 42, X86_64), ALLOW); // connect
  assertEquals(run(p, 0, X86_64), ALLOW); // read
  for (const nr of [425, 426, 427]) assertEquals(run(p, nr, X86_64), ENOSYS);
  assertEquals(run(p, 0x40000000 + 41, X86_64, 2), EAFNOSUPPORT); // any x32 call
  assertEquals(run(p, 102, I386, 1), EAFNOSUPPORT); // socketcall
  assertEquals(run(p, 359, I386, 1), EAFNOSUPPORT);
  assertEquals(run(p, 359, I386, 2), ALLOW);
  assertEquals(run(p, 425, I386), ENOSYS);
  assertEquals(run(p, 3, I386), ALLOW);
});

Deno.test("unixSocketFilter() refuses Unix sockets and io_uring on aarch64 and 32-bit ARM", () => {
  const p = unixSocketFilter("aarch64")!;
  assertEquals(run(p, 198, AARCH64, 1), EAFNOSUPPORT);
  assertEquals(run(p, 198, AARCH64, 2), ALLOW);
  assertEquals(run(p, 199, AARCH64, 1), ALLOW); // socketpair
  assertEquals(run(p, 426, AARCH64), ENOSYS);
  assertEquals(run(p, 281, ARM, 1), EAFNOSUPPORT);
  assertEquals(run(p, 281, ARM, 2), ALLOW);
  assertEquals(run(p, 41, AARCH64, 1), ALLOW); // x86_64's number means nothing here
});
