// What the diagnostics tests open an engine with (src/app/run_diagnostics.ts and
// workspace_diagnostics.ts): language servers on, the command sandbox the grants give, and a
// gate over the folders the test names (.git protected, as a run's gate does).

import { probeCommandSandbox } from "../../src/sandbox/commands/command_sandbox_probe.ts";
import type { CommandSandbox } from "../../src/sandbox/commands/command_sandbox.ts";
import { FileGate } from "../../src/gate/file_gate.ts";
import type { Grants } from "../../src/sandbox/grants/grants.ts";

/**
 * The options every diagnostics test shares; each adds how questions are answered.
 *
 * @param grants The run's grants.
 * @param cwd The workspace.
 * @param folders What the gate lets the run read and write.
 */
export function diagnosticsBase(
  grants: Grants,
  cwd: string,
  folders: { read: string[]; write: string[] },
): {
  settings: { lsp: boolean; lspTimeout: number };
  grants: Grants;
  cwd: string;
  sandbox: Promise<CommandSandbox>;
  gate: FileGate;
} {
  return {
    settings: { lsp: true, lspTimeout: 5000 },
    grants,
    cwd,
    sandbox: Promise.resolve(probeCommandSandbox("auto", { grants, env: Deno.env.toObject() })),
    gate: FileGate.open({
      ...folders,
      denyRead: [],
      denyWrite: [],
      protected: [],
      protectedNames: [".git"],
      hidden: [],
    }),
  };
}
