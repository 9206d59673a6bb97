// The permission prompt of an editor: the policy approver (src/permissions/policy_approver.ts)
// asks this Prompter, which sends `session/request_permission` with the four ACP answers and
// maps the editor's choice back. "Reject always" is remembered for the session here.

import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { PromptAnswer, Prompter, PromptRequest } from "../permissions/prompt_types.ts";
import { compactJson } from "../permissions/compact_json.ts";
import { toolTitle } from "./tool_updates.ts";

/** Sends one permission request to the editor. */
export type PermissionRequester = (
  request: RequestPermissionRequest,
  signal?: AbortSignal,
) => Promise<RequestPermissionResponse>;

/** What the editor is told about the call: its id, title, kind and arguments. */
export interface PromptedCall {
  toolCallId: string;
  title: string;
  kind?: ToolKind;
}

/**
 * The options offered for a call. "Allow always" saves the rule a REPL's "Always allow"
 * would save (it is offered only when such a rule exists; otherwise it allows for this
 * session); "Reject always" denies matching calls for the rest of the session.
 *
 * @example
 * ```ts
 * import { permissionOptions } from "./acp_prompter.ts";
 * const kinds = permissionOptions({ tool: "ls", args: {}, risk: "low", alwaysFile: "p" }).map((o) => o.kind);
 * if (kinds.join() !== "allow_once,allow_always,reject_once,reject_always") throw new Error(kinds.join());
 * ```
 */
export function permissionOptions(request: PromptRequest): PermissionOption[] {
  return [
    { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
    request.alwaysRule
      ? {
        optionId: "allow_always",
        name: `Always allow (saves ${compactJson(request.alwaysRule)} to ${request.alwaysFile})`,
        kind: "allow_always",
      }
      : { optionId: "allow_always", name: "Allow for this session", kind: "allow_always" },
    { optionId: "reject_once", name: "Deny", kind: "reject_once" },
    { optionId: "reject_always", name: "Deny for this session", kind: "reject_always" },
  ];
}

/**
 * Creates the Prompter for one ACP session.
 *
 * @param options `request` sends session/request_permission; `sessionId` names the session;
 *   `currentCall` tells which tool call is being asked about (set by the session bridge).
 * @returns The prompter. A cancelled request (session/cancel) answers `abort`, which denies
 *   the call and stops the turn, as Ctrl-C does in the REPL.
 *
 * @example
 * ```ts
 * import { createAcpPrompter } from "./acp_prompter.ts";
 * const prompter = createAcpPrompter({
 *   sessionId: () => "s",
 *   currentCall: () => ({ toolCallId: "c1", title: "ls" }),
 *   request: () => Promise.resolve({ outcome: { outcome: "selected", optionId: "allow_once" } }),
 * });
 * const answer = await prompter.ask({ tool: "ls", args: {}, risk: "low", alwaysFile: "p" });
 * if (answer.kind !== "once") throw new Error(answer.kind);
 * ```
 */
export function createAcpPrompter(options: {
  /** The session's id (known once the session log started or loaded it). */
  sessionId: () => string;
  currentCall: () => PromptedCall | undefined;
  request: PermissionRequester;
}): Prompter {
  const rejected = new Set<string>();
  const keyOf = (r: PromptRequest) => `${r.tool} ${compactJson(r.alwaysRule ?? r.args ?? {})}`;
  return {
    async ask(request, signal): Promise<PromptAnswer> {
      if (rejected.has(keyOf(request))) {
        return { kind: "deny", reason: "the user denied calls like this for this session" };
      }
      if (signal?.aborted) return { kind: "abort" };
      const call = request.asker
        ? { toolCallId: request.asker.callId, title: askerTitle(request) }
        : options.currentCall() ?? { toolCallId: "unknown", title: request.tool };
      let response: RequestPermissionResponse;
      try {
        response = await options.request({
          sessionId: options.sessionId(),
          toolCall: {
            toolCallId: call.toolCallId,
            title: call.title,
            ...(call.kind ? { kind: call.kind } : {}),
            rawInput: request.args,
          },
          options: permissionOptions(request),
        }, signal);
      } catch {
        // The editor went away or the turn was cancelled: deny and stop, as Ctrl-C does.
        return { kind: "abort" };
      }
      if (response.outcome.outcome !== "selected") return { kind: "abort" };
      switch (response.outcome.optionId) {
        case "allow_once":
          return { kind: "once" };
        case "allow_always":
          return request.alwaysRule ? { kind: "always" } : { kind: "session" };
        case "reject_always":
          rejected.add(keyOf(request));
          return { kind: "deny" };
        default:
          return { kind: "deny" };
      }
    },
  };
}

/** A subagent's call as the permission request names it: the subagent, then the call. */
function askerTitle(request: PromptRequest): string {
  return `${request.asker?.label}: ${toolTitle(request.tool, request.args)}`;
}
