// What a tool host needs once a tool is called, loaded then (tool_host.ts): the groups'
// workers, the ripgrep and fd service of the built-in search tools, the call's ports and the
// reading of its end. A run that only lists its tools (a -p answer without a call) loads none
// of their code: about 160 KB of source over 23 modules.

import type { GroupWorkers, GroupWorkersHost } from "./group_workers.ts";
import type { SearchService } from "../processes/search_service.ts";
import type * as CallEnds from "./call_end.ts";
import type * as CallPorts from "./call_ports.ts";
import type { ToolHostOptions } from "./tool_host_options.ts";

/** The workers, the search service and the call code. */
export interface Machinery {
  /** The groups' workers. */
  workers: GroupWorkers;
  /** ripgrep and fd for the built-in search tools. */
  search: SearchService;
  ends: typeof CallEnds;
  ports: typeof CallPorts;
}

/**
 * Loads the call code and makes the workers and the search service of a host.
 *
 * @param options The host's options.
 * @param host What the workers ask their host (GroupWorkersHost, without the options).
 * @returns The machinery.
 */
export async function loadCallMachinery(
  options: ToolHostOptions,
  host: Omit<GroupWorkersHost, "options">,
): Promise<Machinery> {
  const [{ GroupWorkers }, { SearchService }, ends, ports] = await Promise.all([
    import("./group_workers.ts"),
    import("../processes/search_service.ts"),
    import("./call_end.ts"),
    import("./call_ports.ts"),
  ]);
  return {
    workers: new GroupWorkers({ options, ...host }),
    search: new SearchService({
      grants: options.grants,
      workspace: options.workspace,
      ...(options.commandSandbox ? { commandSandbox: options.commandSandbox } : {}),
    }),
    ends,
    ports,
  };
}
