// The seccomp filter bubblewrap loads (`--seccomp FD`) for commands that share the network.
// Abstract Unix sockets (X11's, D-Bus's, many daemons') belong to the network namespace, not
// to the file system, so with --allow-net a command could reach them past every mount. A
// filter cannot read the address connect() is given, so it refuses creating Unix sockets
// (socket(AF_UNIX), also through i386's socketcall) and io_uring, whose requests skip seccomp;
// socketpair() stays, so programs still talk to their own children. Classic BPF built here:
// no libseccomp, no native dependency.

/** One classic BPF instruction before its jumps are resolved. */
type Op =
  | { code: number; k: number; jt?: string; jf?: string }
  | { label: string };

const LD_W_ABS = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const RET = 0x06;

const ALLOW = 0x7fff0000;
const ERRNO = 0x00050000;
const EAFNOSUPPORT = 97;
const ENOSYS = 38;

/** Offsets into struct seccomp_data (little-endian: the low half of args[0] first). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

const AF_UNIX = 1;
const IO_URING = [425, 426, 427]; // setup, enter, register: the same on every architecture

/** Each architecture's audit value and system call numbers. */
interface ArchTable {
  audit: number;
  socket: number;
  socketcall?: number;
  /** x32 system calls carry this bit on x86_64. */
  x32Bit?: number;
}

const TABLES: Record<string, { native: ArchTable; compat: ArchTable }> = {
  x86_64: {
    native: { audit: 0xc000003e, socket: 41, x32Bit: 0x40000000 },
    compat: { audit: 0x40000003, socket: 359, socketcall: 102 }, // i386
  },
  aarch64: {
    native: { audit: 0xc00000b7, socket: 198 },
    compat: { audit: 0x40000028, socket: 281 }, // 32-bit ARM
  },
};

function rulesFor(table: ArchTable, prefix: string): Op[] {
  const ops: Op[] = [{ code: LD_W_ABS, k: NR }];
  if (table.x32Bit !== undefined) ops.push({ code: JGE, k: table.x32Bit, jt: "deny_unix" });
  ops.push({ code: JEQ, k: table.socket, jt: `${prefix}_socket` });
  if (table.socketcall !== undefined) ops.push({ code: JEQ, k: table.socketcall, jt: "deny_unix" });
  for (const nr of IO_URING) ops.push({ code: JEQ, k: nr, jt: "deny_nosys" });
  ops.push({ code: RET, k: ALLOW });
  ops.push({ label: `${prefix}_socket` });
  ops.push({ code: LD_W_ABS, k: ARG0 });
  ops.push({ code: JEQ, k: AF_UNIX, jt: "deny_unix" });
  ops.push({ code: RET, k: ALLOW });
  return ops;
}

/** Resolves labels into the relative jumps of struct sock_filter and encodes the program. */
function assemble(ops: Op[]): Uint8Array {
  const code = ops.filter((op): op is Exclude<Op, { label: string }> => !("label" in op));
  const at = new Map<string, number>();
  let index = 0;
  for (const op of ops) {
    if ("label" in op) at.set(op.label, index);
    else index++;
  }
  const bytes = new Uint8Array(code.length * 8);
  const view = new DataView(bytes.buffer);
  code.forEach((op, i) => {
    const jump = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255) {
        throw new Error(`bad seccomp jump to ${label}`);
      }
      return target - i - 1;
    };
    view.setUint16(i * 8, op.code, true);
    view.setUint8(i * 8 + 2, jump(op.jt));
    view.setUint8(i * 8 + 3, jump(op.jf));
    view.setUint32(i * 8 + 4, op.k >>> 0, true);
  });
  return bytes;
}

/**
 * The filter for `arch` as bubblewrap reads it (an array of struct sock_filter), or
 * undefined for an architecture harness has no table for.
 *
 * @example
 * ```ts
 * import { unixSocketFilter } from "./seccomp_filter.ts";
 * const program = unixSocketFilter("x86_64");
 * if (!program || program.length % 8 !== 0) throw new Error();
 * if (unixSocketFilter("mips") !== undefined) throw new Error();
 * ```
 */
export function unixSocketFilter(arch: string): Uint8Array | undefined {
  const table = TABLES[arch];
  if (!table) return undefined;
  return assemble([
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ, k: table.native.audit, jt: "native", jf: "not_native" },
    { label: "native" },
    ...rulesFor(table.native, "native"),
    { label: "not_native" },
    { code: JEQ, k: table.compat.audit, jt: "compat" },
    { code: RET, k: ALLOW },
    { label: "compat" },
    ...rulesFor(table.compat, "compat"),
    { label: "deny_unix" },
    { code: RET, k: ERRNO | EAFNOSUPPORT },
    { label: "deny_nosys" },
    { code: RET, k: ERRNO | ENOSYS },
  ]);
}
