// The ports a call's worker gets beside its arguments, each for harness's own tools only: the
// host's ripgrep and fd (processes/search_service.ts) for grep_search and glob, the host's file
// port (file_channel.ts: the editor's, under ACP) for the built-in file tools, and the host's jobs
// (src/jobs/job_service.ts) for run_command and the job tools. A plugin from elsewhere keeps only
// its own worker's access, which its grants bound.

import type { ToolInfo } from "../../tools/tool_entry.ts";
import { changePort, type FilePort } from "../../tools/file_port.ts";
import { FILE_WRITE_TOOLS, isTool, JOB_TOOLS, RUN_COMMAND } from "../../tools/builtin_tools.ts";
import type { EffectivePermissions } from "../grants/effective_permissions.ts";
import { openFileChannel } from "./file_channel.ts";
import { EXTERNAL_SEARCH_TOOLS, type SearchService } from "../processes/search_service.ts";
import type { JobTable } from "../../jobs/job_table.ts";
import { openJobPort } from "../../jobs/job_service.ts";

/** One port's worker end, and how the host side ends. */
interface OpenPort {
  port: MessagePort;
  close(): void;
}

/** What the host serves the ports from. */
export interface PortServices {
  search: SearchService;
  jobs: JobTable;
  workspace: string;
  /** false: grep_search and glob never run ripgrep or fd (tests, benchmarks). */
  externalSearch?: boolean;
}

/** The ports of one call, to spread into its `run` message, and their end. */
export interface CallPorts {
  ports: { search?: MessagePort; files?: MessagePort; jobs?: MessagePort };
  close(): void;
}

/**
 * The file port's channel for a call of a built-in tool; undefined for any other tool, or
 * when the call brings no port (the worker's own file access serves it). A call that changes
 * one file (a preview, an edit tool's run) reads only where it may write.
 *
 * @param info The tool called.
 * @param files The port the call brings.
 * @param call Whether the call changes one file (else: whether the tool is an edit tool).
 * @returns The worker's end and its closing.
 */
export function filesPort(
  info: ToolInfo,
  files: FilePort | undefined,
  call: { changes?: boolean } = {},
): OpenPort | undefined {
  if (!files || info.origin !== "builtin") return undefined;
  const changes = call.changes ?? isTool(info, FILE_WRITE_TOOLS);
  return openFileChannel(changes ? changePort(files) : files);
}

/**
 * Opens the ports a call of a tool gets.
 *
 * @param services The host's search, jobs and workspace.
 * @param call The tool, its group's permissions, the file port the call brings, and whose
 *   background jobs it reaches.
 * @returns The ports and their closing (once the reply came).
 */
export function openCallPorts(
  services: PortServices,
  call: {
    info: ToolInfo;
    effective: EffectivePermissions;
    files?: FilePort | undefined;
    /** The session whose jobs the call reaches (JobTable.scope); default the front end's. */
    jobOwner?: string | undefined;
  },
): CallPorts {
  const { info } = call;
  const searches = EXTERNAL_SEARCH_TOOLS.has(info.name) && info.origin === "builtin" &&
    services.externalSearch !== false;
  const open: Record<string, OpenPort | undefined> = {
    search: searches ? services.search.open(call.effective) : undefined,
    files: filesPort(info, call.files),
    jobs: isTool(info, JOB_TOOLS)
      ? openJobPort(services.jobs.scope(call.jobOwner ?? ""), {
        mayRun: isTool(info, RUN_COMMAND),
        workspace: services.workspace,
      })
      : undefined,
  };
  const ports: CallPorts["ports"] = {};
  for (const key of ["search", "files", "jobs"] as const) {
    const port = open[key]?.port;
    if (port) ports[key] = port;
  }
  return {
    ports,
    close: () => {
      for (const port of Object.values(open)) port?.close();
    },
  };
}
