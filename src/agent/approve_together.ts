// Before the calls of a model turn run, offers them all to the approver at once, so the
// calls that need the user's approval are asked about in one prompt (approve all, deny all,
// or one by one) rather than one prompt per call. The calls are validated here only to show
// and match their arguments; each is still validated and approved again when it is reached
// (call_stages.ts), and the approver applies an answer only to the call the user saw.

import type { ToolCall } from "../messages.ts";
import type { ApprovalRequest, Approver } from "../permissions/approver.ts";
import type { FilePort } from "../tools/file_port.ts";
import type { ArgumentParser } from "./call_flight.ts";
import { parseJsonArguments } from "./call_stages.ts";
import type { ToolOffer } from "../sandbox/grants/tool_offer.ts";

/**
 * The Approver for one turn's calls: the approver's own when it cannot ask about several
 * calls together, or fewer than two valid calls would reach it.
 *
 * @param calls The calls that may run this turn, in call order.
 * @param options The approver, the tools (to validate and preview file changes), the argument
 *   parser and the conversation state (a preview gets a copy).
 * @param signal Aborts validation or the prompt.
 * @returns The Approver to pass each of these calls to.
 */
export async function approverForTurn(
  calls: readonly ToolCall[],
  options: {
    approver: Approver;
    offer: ToolOffer;
    parseArguments?: ArgumentParser;
    state?: Record<string, unknown>;
    files?: FilePort;
  },
  signal: AbortSignal,
): Promise<Approver> {
  const { approver, offer } = options;
  if (!approver.approveTogether || calls.length < 2 || signal.aborted) return approver;
  const requests: ApprovalRequest[] = [];
  for (const call of calls) {
    const entry = offer.find(call.name);
    if (!entry) continue;
    const { info } = entry;
    const parsed = (options.parseArguments ?? parseJsonArguments)(call.arguments, info.parameters);
    if ("error" in parsed) continue;
    const validated = await entry.validate(parsed.value);
    if (!validated.ok) continue;
    const args = validated.value;
    requests.push({
      callId: call.id,
      tool: call.name,
      args,
      risk: info.risk,
      // As call_stages.ts does: the prompt lists a file change with its diff.
      ...(entry.preview
        ? { preview: () => entry.preview!(args, options.state ?? {}, options.files) }
        : {}),
    });
  }
  if (requests.length < 2 || signal.aborted) return approver;
  return await approver.approveTogether(requests, signal);
}
