// A cancellable timer for deadlines that guard other pending work (a request's first byte,
// a stalled stream). Deno 2.9's global setTimeout is node:timers' Timeout: the first call in
// a process loads that module, about 7 ms, which every -p run paid before its request
// (bench/startup.ts). Atomics.waitAsync with a timeout is a timer V8 runs itself: about
// 0.1 ms the first time, cancelled by Atomics.notify.
//
// Unlike setTimeout it does not keep the process alive: use it only beside work that does
// (a fetch, a stream being read), never as a sleep.

/** A pending timer. */
export interface QuietTimer {
  /** Stops it; `fire` is not called after this. */
  cancel(): void;
}

/**
 * Calls `fire` after `ms` milliseconds unless cancelled first.
 *
 * @param ms The delay (0 or less: on the next microtask).
 * @param fire What to run.
 * @returns The timer.
 *
 * @example
 * ```ts
 * import { quietTimer } from "./quiet_timer.ts";
 * let fired = 0;
 * quietTimer(10, () => fired++);
 * quietTimer(10, () => fired += 10).cancel();
 * await new Promise((resolve) => setTimeout(resolve, 40));
 * if (fired !== 1) throw new Error(String(fired));
 * ```
 */
export function quietTimer(ms: number, fire: () => void): QuietTimer {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let live = true;
  const wait = Atomics.waitAsync(cell, 0, 0, Math.max(0, ms));
  const settled = wait.async ? wait.value : Promise.resolve(wait.value);
  void settled.then((outcome) => {
    if (live && outcome === "timed-out") {
      live = false;
      fire();
    }
  });
  return {
    cancel() {
      if (!live) return;
      live = false;
      Atomics.notify(cell, 0); // ends the wait now rather than at its deadline
    },
  };
}
