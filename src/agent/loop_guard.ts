// The loop guard: a model that repeats an identical call (same tool, same arguments) which
// returned the same result each time is answered from the third time on (configurable) with
// a `repeated_call` result saying so, instead of running it again. Its turn stage
// (turn_kernel.ts) asks it before each call and tells it each result; it lives for one user
// message.

import { makeToolResult, type ToolCall, type ToolResult } from "../messages.ts";
import { canonicalArguments } from "./repair_arguments.ts";

/** The default limit: the third identical call with the same result is not run. */
export const DEFAULT_LOOP_GUARD = 3;

/** What the guard remembers of one call (tool and canonical arguments). */
interface Seen {
  /** The result's data, the same for each of the calls counted. */
  data: string | null;
  /** Successful calls in a row that returned it. */
  times: number;
  /** The id of the last of them, for the model to look at. */
  callId: string;
}

/**
 * Remembers the results of the calls of one user message. A call is answered without running
 * when the `limit - 1` identical calls before it all succeeded with the same data; one whose
 * earlier results differed (or failed) runs. A call that may change things (it writes, runs
 * commands, uses the network, or changed the task list) makes it forget every other call's
 * results, since they may differ now.
 *
 * @example
 * ```ts
 * import { LoopGuard } from "./loop_guard.ts";
 * import { makeToolResult } from "../messages.ts";
 * const guard = new LoopGuard(3);
 * const call = (id: string) => ({ id, name: "ls", arguments: '{"path": "."}' });
 * for (const id of ["c1", "c2"]) {
 *   if (guard.check(call(id))) throw new Error("ran before");
 *   guard.record(call(id), makeToolResult({ data: "a.txt" }), { mayChange: false });
 * }
 * if (guard.check(call("c3"))?.error_type !== "repeated_call") throw new Error();
 * ```
 */
export class LoopGuard {
  #seen = new Map<string, Seen>();

  /**
   * @param limit The identical call that is answered without running (3: the third); 0 or 1
   * turns the guard off.
   */
  constructor(readonly limit: number = DEFAULT_LOOP_GUARD) {}

  /**
   * The result for a call that repeats earlier identical ones with the same result, or
   * undefined: run it.
   *
   * @param call The call as the model made it.
   * @returns A `repeated_call` result, or undefined.
   */
  check(call: ToolCall): ToolResult | undefined {
    if (this.limit < 2) return undefined;
    const seen = this.#seen.get(keyOf(call));
    if (seen === undefined || seen.times < this.limit - 1) return undefined;
    // The same text each time, so the repeated-failure stop (repair_arguments.ts) counts it.
    return makeToolResult({
      errorType: "repeated_call",
      errorMessage: `Not run: "${call.name}" was called ${seen.times} times with these ` +
        `arguments and returned the same result each time (see call ${seen.callId}), so it ` +
        "would return it again. Use that result, change the arguments, call another tool, or " +
        "answer the user with what you have",
    });
  }

  /**
   * Records a call that ran.
   *
   * @param call The call as the model made it.
   * @param result Its result.
   * @param options `mayChange`: the call may have changed what other calls return.
   */
  record(call: ToolCall, result: ToolResult, options: { mayChange: boolean }): void {
    const key = keyOf(call);
    if (options.mayChange) {
      for (const other of this.#seen.keys()) if (other !== key) this.#seen.delete(other);
    }
    if (!result.success) {
      this.#seen.delete(key);
      return;
    }
    const seen = this.#seen.get(key);
    if (seen !== undefined && seen.data === result.data) {
      seen.times++;
      seen.callId = call.id;
    } else {
      this.#seen.set(key, { data: result.data, times: 1, callId: call.id });
    }
  }
}

function keyOf(call: ToolCall): string {
  return JSON.stringify([call.name, canonicalArguments(call.arguments)]);
}
