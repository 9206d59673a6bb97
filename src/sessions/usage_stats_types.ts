// The shape of `harness stats --json` and of what `/stats` shows: usage per tool and per
// model, approvals, stops and trends, computed by usage_stats.ts from the session log.
// Token counts a server never reported are unknown, never zero.

/**
 * How the repeated-failure stop's message starts (src/agent/turn_kernel.ts, "Stopped: the
 * model called X 3 times with the same failing arguments"). tests/sessions/usage_stats_test.ts
 * drives a real conversation into that stop, so a change of wording fails there.
 */
export const REPEATED_FAILURE_PREFIX = "Stopped: the model called";

/** Approvals of one tool, or of all. */
export interface ApprovalStats {
  /** The user allowed the call as the model made it. */
  approved: number;
  /** The user denied it. */
  denied: number;
  /** The user changed the arguments, then allowed it (`changedArguments` in the log). */
  changed: number;
  /** Median and 95th percentile of how long the turn waited for the user's answer. */
  medianWaitMs: number | null;
  p95WaitMs: number | null;
  /** Decided without asking: by a policy rule, --yes, -p or a safe tool's risk. */
  ruleAllowed: number;
  ruleDenied: number;
}

/** One tool's calls. */
export interface ToolStats {
  tool: string;
  /** Calls that got a result (run, denied, limited or interrupted). */
  calls: number;
  successes: number;
  /** Failed calls by error type (`not_found`, `permission_denied`, `timeout`, ...). */
  errors: Record<string, number>;
  /** successes / calls, or null without calls. */
  successRate: number | null;
  /** Run time of the calls that ran (nearest-rank percentiles). */
  medianMs: number | null;
  p95Ms: number | null;
  approvals: ApprovalStats;
}

/** Token counts of model turns, as the servers reported them. */
export interface TokenTotals {
  /** Assistant messages (model turns that answered). */
  turns: number;
  /** Turns whose server reported no usage at all. */
  turnsWithoutUsage: number;
  /** Prompt tokens of the turns that reported usage (reused and processed). */
  promptTokens: number;
  /** Of those, tokens the server took from its cache (turns that reported the counter). */
  reusedTokens: number;
  /** Of those, tokens the server had to process (the same turns). */
  processedTokens: number;
  /** Prompt tokens of turns that did not say what they reused (older sessions, some servers). */
  unknownReuseTokens: number;
  /** Tokens the model generated. */
  generatedTokens: number;
}

/** One model's use (the model a session was started with). */
export interface ModelStats extends TokenTotals {
  model: string;
  /** Sessions in which this model answered. */
  sessions: number;
  toolCalls: number;
}

/** One kind of side request's tokens, as the server reported them. */
export interface SideRequestStats {
  side: string;
  requests: number;
  promptTokens: number;
  generatedTokens: number;
}

/** Usage statistics over a time window or one session. */
export interface UsageStats {
  /** ISO time the window starts at (absent: all time). */
  since?: string;
  /** The session the numbers are for (/stats). */
  sessionId?: string;
  /** Sessions in which a model answered in the window. */
  sessions: number;
  /**
   * Sessions with rows whose payload is not JSON (a disk fault, an edit of the file), found
   * when one made a query fail: those rows are left out of every number. Absent otherwise.
   */
  damaged?: { sessionId: string; events: number }[];
  /** Most called first. */
  tools: ToolStats[];
  /** Most turns first. */
  models: ModelStats[];
  /**
   * The model's requests besides the conversation's turns, by what sent them (a tool's name,
   * such as read_file's curator, or `summary` for /compact), most first.
   */
  sideRequests: SideRequestStats[];
  approvals: ApprovalStats;
  stops: {
    /** Calls the loop guard answered `repeated_call` instead of running them again. */
    loopGuard: number;
    /** Turns ended because the same call failed the same way three times. */
    repeatedFailures: number;
    /** The per-message iteration limit stopped a turn. */
    iterationLimit: number;
    /** The per-turn tool-call limit answered calls with `limit_reached`. */
    toolCallLimit: number;
    /** Turns by how they ended: answered, task_complete, iteration_limit, error, interrupted. */
    byReason: Record<string, number>;
  };
  trends: {
    /** Tool calls per local calendar day, oldest first (days without calls left out). */
    callsPerDay: { day: string; calls: number }[];
    /** The most recent sessions' tokens, oldest first. */
    tokensPerSession: {
      sessionId: string;
      startedAt: string;
      model: string;
      promptTokens: number;
      generatedTokens: number;
    }[];
  };
}
