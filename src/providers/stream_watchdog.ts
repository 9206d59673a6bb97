// Limits on a streamed model request, shared by the HTTP providers: how long to wait for the
// first chunk (long: a CPU may take minutes over a big prompt) and how long the stream may
// stay silent once it has begun (a server that sent one chunk and then nothing must not hang
// a run for good). It also ticks once a second while waiting, so the user sees time pass.
// When the first chunk never comes it checks whether the server accepts connections, so the
// error says "accepted the connection but sent nothing" rather than "cannot reach".

import type { AgentError } from "../errors.ts";
import { type QuietTimer, quietTimer } from "../platform/quiet_timer.ts";

/** The two limits, in milliseconds. */
export interface StreamLimits {
  /** From sending the request to the first chunk of the answer. */
  firstByteTimeoutMs: number;
  /** Between two chunks once the answer has begun. */
  stallTimeoutMs: number;
}

/** Ten minutes to the first chunk, two minutes of silence mid-stream. */
export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  firstByteTimeoutMs: 600_000,
  stallTimeoutMs: 120_000,
};

/**
 * Watches one streamed request. Pass `signal` to fetch; call `chunk()` for every chunk that
 * carries the answer and `dispose()` at the end. When a limit passes, `signal` aborts and
 * `expired` says which limit it was.
 *
 * @example
 * ```ts
 * import { StreamWatchdog } from "./stream_watchdog.ts";
 * using watchdog = new StreamWatchdog({ firstByteTimeoutMs: 20, stallTimeoutMs: 20 });
 * await new Promise((resolve) => setTimeout(resolve, 60));
 * if (watchdog.expired !== "first_byte" || !watchdog.signal.aborted) throw new Error();
 * ```
 */
export class StreamWatchdog implements Disposable {
  /** Aborts on the caller's signal or when a limit passes. */
  readonly signal: AbortSignal;
  /** Which limit passed, if one did. */
  expired: "first_byte" | "stall" | undefined;
  #controller = new AbortController();
  // Quiet timers (quiet_timer.ts): the request they guard keeps the process alive.
  #timer: QuietTimer | undefined;
  #ticker: QuietTimer | undefined;
  #started = false;
  #limits: StreamLimits;
  #server: string | undefined;
  /** Whether the server accepted a connection when the first-byte limit passed. */
  #accepts = false;

  /**
   * @param limits The two limits.
   * @param options The caller's abort signal, `onWaiting` called about once a second with
   *   the time elapsed until the first chunk arrives, and `server`: the URL whose host and
   *   port are tried when the first chunk is late.
   */
  constructor(
    limits: StreamLimits,
    options: {
      signal?: AbortSignal | undefined;
      onWaiting?: (elapsedMs: number) => void;
      server?: string;
    } = {},
  ) {
    this.#limits = limits;
    this.#server = options.server;
    this.signal = options.signal
      ? AbortSignal.any([options.signal, this.#controller.signal])
      : this.#controller.signal;
    this.#arm("first_byte", limits.firstByteTimeoutMs);
    const onWaiting = options.onWaiting;
    if (onWaiting) {
      const start = performance.now();
      const tick = () => {
        this.#ticker = quietTimer(1000, tick);
        onWaiting(performance.now() - start);
      };
      this.#ticker = quietTimer(1000, tick);
    }
  }

  /** Whether the first chunk has arrived. */
  get started(): boolean {
    return this.#started;
  }

  /** Records a chunk of the answer: ends the wait for the first one, restarts the stall limit. */
  chunk(): void {
    if (this.expired) return;
    if (!this.#started) {
      this.#started = true;
      this.#ticker?.cancel();
    }
    this.#arm("stall", this.#limits.stallTimeoutMs);
  }

  /** Stops the timers. */
  dispose(): void {
    this.#timer?.cancel();
    this.#ticker?.cancel();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /**
   * The error for a passed limit, naming the setting that raises it.
   *
   * @param baseUrl The server's address.
   * @returns The error, or undefined when no limit passed.
   */
  error(baseUrl: string): AgentError | undefined {
    if (this.expired === "first_byte") {
      const within = seconds(this.#limits.firstByteTimeoutMs);
      const hint = "may still be loading the model or reading a long prompt; raise " +
        `--first-byte-timeout (config "first_byte_timeout", in seconds) or try again`;
      return this.#accepts
        ? { kind: "provider_silent", baseUrl, cause: `sent nothing within ${within}: it ${hint}` }
        : {
          kind: "provider_unreachable",
          baseUrl,
          cause: `no answer within ${within}: the server ${hint}`,
        };
    }
    if (this.expired === "stall") {
      const message = `the answer stopped: nothing arrived for ` +
        `${seconds(this.#limits.stallTimeoutMs)} after it began; the server may have hung ` +
        `(check its log), or raise --stall-timeout (config "stall_timeout", in seconds)`;
      return { kind: "provider_stream", baseUrl, message };
    }
    return undefined;
  }

  #arm(which: "first_byte" | "stall", ms: number): void {
    this.#timer?.cancel();
    this.#timer = quietTimer(ms, async () => {
      this.expired = which;
      this.#ticker?.cancel();
      if (which === "first_byte" && this.#server !== undefined) {
        this.#accepts = await acceptsConnections(this.#server);
      }
      this.#controller.abort(new DOMException(`${which} timeout`, "TimeoutError"));
    });
  }
}

/** Whether something accepts a TCP connection at `url`'s host and port within two seconds. */
async function acceptsConnections(url: string): Promise<boolean> {
  let target: { hostname: string; port: number };
  try {
    const parsed = new URL(url);
    const port = Number(parsed.port) || (parsed.protocol === "https:" ? 443 : 80);
    target = { hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
  } catch {
    return false;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connecting = Deno.connect(target);
  try {
    const conn = await Promise.race([
      connecting,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error()), 2000))),
    ]);
    conn.close();
    return true;
  } catch {
    connecting.then((conn) => conn.close(), () => {}); // a connection made after the wait
    return false;
  } finally {
    clearTimeout(timer);
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}
