// What a front end (the REPL, -p, `harness tool`, `harness acp`) tells the run it opens: how
// questions are asked and answered, and where each kind of message goes. Everything else
// about a run is the same for every front end (open_run.ts assembles it).

import type { AgentError, Result } from "../errors.ts";
import type { TrustIO } from "../permissions/project_trust.ts";
import type { ProviderProgress } from "./provider_openers.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import type { JobSummary } from "../jobs/job_control.ts";

/** A model settled to run in this process when no server answered, and a line about it. */
export interface ModelHere {
  modelFile: string;
  note: string;
}

/** How one front end asks, answers and shows. */
export interface FrontEnd {
  /**
   * The user can answer questions (the REPL): untrusted project plugins and a project policy
   * file's allow rules are asked about. Otherwise they are left out with a line saying so.
   */
  interactive: boolean;
  /**
   * The tool list may load after the run opened: the REPL shows its prompt meanwhile, and
   * plugin warnings follow when the list is known.
   */
  listsToolsLater?: boolean;
  /** Trust questions and their answers; warnings about plugins and the command sandbox. */
  io: TrustIO;
  /** A line about an MCP server: blocked by the grants, failed, or its tools changed. */
  mcpNotice(line: string): void;
  /** An MCP tool's progress while it runs; null when it is done. */
  mcpProgress?(tool: string, text: string | null): void;
  /** The approver's lines: a misspelt rule name, a rule saved, a rule that could not be. */
  approvalNote(text: string, tone: "error" | "warning" | "note"): void;
  /** Where saved tool outputs go (default: the saved-outputs folder). */
  outputsDir?: string;
  /** One tool call and out (`harness tool`): each tool's worker imports only its own plugin. */
  oneCall?: boolean;
  /** How an in-process model's load and a model download are shown. */
  progress?: ProviderProgress;
  /**
   * No model server answered: settle a model to run in this process (after asking), or say
   * why not. Without it, the run fails with the discovery error.
   */
  offerModelHere?(noServer: AgentError): Promise<Result<ModelHere, { message: string }>>;
  /**
   * The session log is open: the front end may settle which session to continue (--continue,
   * --resume). An exit code stops the run; the front end has said why.
   */
  storeOpened?(store: SessionStore): number | undefined;
  /** The provider is open; its notes are not shown yet (the REPL takes the terminal here). */
  providerOpened?(notes: readonly string[]): void;
  /** A background job ended or started to wait for input (the model hears of it next turn). */
  jobChanged?(job: JobSummary): void;
}
