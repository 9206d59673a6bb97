// A Prompter for approver tests: it gives scripted answers in order and records what it was
// asked (an unexpected prompt fails the test).

import type { PromptAnswer, Prompter, PromptRequest } from "../../src/permissions/prompt_types.ts";

/**
 * A Prompter that answers from `answers` and records each request in `asked`.
 *
 * @example
 * ```ts
 * import { scriptedPrompter } from "./scripted_prompter.ts";
 * const prompter = scriptedPrompter([{ kind: "once" }]);
 * await prompter.ask({ tool: "t", args: {}, risk: "low", alwaysFile: "p" });
 * if (prompter.asked.length !== 1) throw new Error();
 * ```
 */
export function scriptedPrompter(answers: PromptAnswer[]): Prompter & { asked: PromptRequest[] } {
  const asked: PromptRequest[] = [];
  return {
    asked,
    ask(request) {
      asked.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error(`unexpected prompt for ${request.tool}`);
      return Promise.resolve(answer);
    },
  };
}
