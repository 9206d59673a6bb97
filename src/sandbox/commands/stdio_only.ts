// Processes harness starts (commands, `ctx.spawn`, MCP stdio servers) get only stdin, stdout
// and stderr. harness can inherit other open descriptors from whatever started it (`9<secret`
// in a shell, an editor's or terminal's leftovers), and Deno.Command passes on every
// descriptor not marked close-on-exec. So before each start the host marks every descriptor
// above 2 close-on-exec (ioctl FIOCLEX through libc; Deno opens its own that way already).

/** ioctl(fd, FIOCLEX) by platform: asm-generic on Linux, _IO('f', 1) on macOS. */
const FIOCLEX: Partial<Record<typeof Deno.build.os, bigint>> = {
  linux: 0x5451n,
  darwin: 0x20006601n,
};

const LIBC: Partial<Record<typeof Deno.build.os, string[]>> = {
  linux: ["libc.so.6", `libc.musl-${Deno.build.arch}.so.1`, "libc.so"],
  darwin: ["/usr/lib/libSystem.B.dylib"],
};

const SYMBOLS = { ioctl: { parameters: ["i32", "u64"], result: "i32" } } as const;

type Ioctl = (fd: number, request: bigint) => number;

/** undefined: not tried yet; null: no libc here (or no FFI). */
let ioctl: Ioctl | null | undefined;

function loadIoctl(): Ioctl | null {
  for (const name of LIBC[Deno.build.os] ?? []) {
    try {
      const lib = Deno.dlopen(name, SYMBOLS);
      return (fd, request) => lib.symbols.ioctl(fd, request);
    } catch { /* try the next name */ }
  }
  return null;
}

/**
 * Marks every open descriptor above 2 close-on-exec, so the next process started gets only
 * stdin, stdout and stderr. Call it on the host right before starting a process.
 *
 * @returns Whether it could (false on Windows, or where libc cannot be loaded).
 *
 * @example
 * ```ts
 * import { closeExtraFdsOnExec } from "./stdio_only.ts";
 * if (Deno.build.os === "linux" && !closeExtraFdsOnExec()) throw new Error("no FIOCLEX");
 * ```
 */
export function closeExtraFdsOnExec(): boolean {
  const request = FIOCLEX[Deno.build.os];
  if (request === undefined) return false;
  ioctl ??= loadIoctl();
  if (ioctl === null) return false;
  let fds: number[];
  try {
    const dir = Deno.build.os === "linux" ? "/proc/self/fd" : "/dev/fd";
    fds = [...Deno.readDirSync(dir)].map((entry) => Number(entry.name));
  } catch {
    return false;
  }
  // A descriptor closed since the listing fails with EBADF: nothing to do for it.
  for (const fd of fds) if (Number.isInteger(fd) && fd > 2) ioctl(fd, request);
  return true;
}
