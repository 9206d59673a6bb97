// How a subagent's calls are approved: under the workspace's rules, by an approver of its own
// (what the user allows it for the session stays its own), asking through its parent's prompt
// (the terminal's, the editor's) with a line saying which subagent asks, one prompt at a time
// when several children run. It runs without asking only when its parent does (--yes) and its
// agent file does not ask for approvals; it never allows what its parent would not.

import type { Approver } from "../permissions/approver.ts";
import type { Prompter, PromptRequest } from "../permissions/prompt_types.ts";
import { childCallId } from "../agent/loop_events.ts";
import type { RunApproval } from "./run_approver.ts";

/** Prompts of concurrent subagents, one at a time. */
export class PromptQueue {
  #last: Promise<unknown> = Promise.resolve();

  /**
   * Runs `work` after every prompt queued before it.
   *
   * @param work Shows one prompt and returns its answer.
   * @returns The answer.
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#last.then(work, work);
    this.#last = next.catch(() => {});
    return next;
  }
}

/** Who asks, for the prompt. */
export interface Asker {
  /** `subagent "explorer" (task 2)`. */
  label: string;
  /** The call being asked about, as the editor knows it. */
  callId(): string;
}

/**
 * A prompter that asks through `parent`, naming the subagent, queued behind other prompts.
 *
 * @param parent The parent conversation's prompter.
 * @param asker Who asks.
 * @param queue The prompts of the parent's children.
 * @returns The prompter.
 *
 * @example
 * ```ts
 * import { askingThrough, PromptQueue } from "./child_approver.ts";
 * let shown = "";
 * const parent = { ask: (r: { asker?: { label: string } }) => (shown = r.asker?.label ?? "", Promise.resolve({ kind: "once" as const })) };
 * const prompter = askingThrough(parent, { label: "subagent x", callId: () => "1/c" }, new PromptQueue());
 * await prompter.ask({ tool: "ls", args: {}, risk: "low", alwaysFile: "p" });
 * if (shown !== "subagent x") throw new Error(shown);
 * ```
 */
export function askingThrough(parent: Prompter, asker: Asker, queue: PromptQueue): Prompter {
  const named = (request: PromptRequest): PromptRequest => ({
    ...request,
    asker: { label: asker.label, callId: asker.callId() },
  });
  const many = parent.askMany?.bind(parent);
  return {
    ask: (request, signal) => queue.run(() => parent.ask(named(request), signal)),
    ...(many
      ? { askMany: (requests, signal) => queue.run(() => many(requests.map(named), signal)) }
      : {}),
  };
}

/** What a subagent's approver is made from. */
export interface ChildApproverOptions {
  /** The workspace's rules and approvers. */
  approval: RunApproval;
  /** The parent's prompter; without one, what the rules leave to the user is denied. */
  prompter?: Prompter;
  /** Its task id, for the editor's name of its calls. */
  taskId: string;
  /** How prompts name it. */
  label: string;
  /** Whether it runs without asking (its scope's autoApprove: only when its parent does). */
  yes: boolean;
  queue: PromptQueue;
}

/**
 * The approver of one subagent.
 *
 * @param options The rules, the parent's prompter, the task and whether it may run unasked.
 * @returns The approver; every call of the child passes it.
 */
export function childApprover(options: ChildApproverOptions): Approver {
  let current = "";
  const prompter = options.prompter &&
    askingThrough(options.prompter, {
      label: options.label,
      callId: () => current,
    }, options.queue);
  const inner = options.approval.approver(prompter, { yes: options.yes });
  return {
    approve(request, signal) {
      current = childCallId(options.taskId, request.callId);
      return inner.approve(request, signal);
    },
  };
}
