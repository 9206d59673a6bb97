// Limits on a tool call's arguments, checked before anything recurses over them: the parser,
// argument repair, zod validation, the policy and postMessage to the sandbox worker all walk
// nested values, and a model's call nested 10,000 deep overflows their stack. The call driver
// answers a call past a limit with a validation error the model can act on.

import { jsonDepth, MAX_JSON_DEPTH } from "../platform/json_depth.ts";
import { humanSize } from "../platform/human_size.ts";

/** The largest arguments text a call may have (1 MiB; a whole file to write fits). */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;

/**
 * What is wrong with a call's raw arguments text, or undefined when it is within the limits:
 * at most {@link MAX_ARGUMENT_BYTES} of UTF-8 and {@link MAX_JSON_DEPTH} levels of nesting.
 *
 * @param raw The arguments as the model sent them.
 * @returns A sentence for the model, or undefined.
 *
 * @example
 * ```ts
 * import { argumentsTextProblem } from "./argument_limits.ts";
 * if (argumentsTextProblem('{"path": "a"}') !== undefined) throw new Error();
 * if (!argumentsTextProblem("[".repeat(100))?.includes("nest")) throw new Error();
 * ```
 */
export function argumentsTextProblem(raw: string): string | undefined {
  // Each UTF-16 unit is at most 3 bytes of UTF-8: measure only when it might be too big.
  if (raw.length * 3 > MAX_ARGUMENT_BYTES) {
    const bytes = new TextEncoder().encode(raw).length;
    if (bytes > MAX_ARGUMENT_BYTES) {
      return `The arguments are ${humanSize(bytes)}, more than the ${
        humanSize(MAX_ARGUMENT_BYTES)
      } a call may carry: split the work into smaller calls`;
    }
  }
  if (jsonDepth(raw) > MAX_JSON_DEPTH) return nestingProblem();
  return undefined;
}

/**
 * What is wrong with parsed arguments (argument repair may decode a JSON string into nested
 * values), or undefined. Walks the value with its own stack, never by recursion.
 *
 * @param value The parsed arguments.
 * @returns A sentence for the model, or undefined.
 *
 * @example
 * ```ts
 * import { argumentsValueProblem } from "./argument_limits.ts";
 * if (argumentsValueProblem({ a: [1, { b: 2 }] }) !== undefined) throw new Error();
 * if (!argumentsValueProblem(JSON.parse("[".repeat(99) + "]".repeat(99)))) throw new Error();
 * ```
 */
export function argumentsValueProblem(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > MAX_JSON_DEPTH) return nestingProblem();
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return undefined;
}

function nestingProblem(): string {
  return `The arguments nest more than ${MAX_JSON_DEPTH} levels deep: send flat values`;
}
