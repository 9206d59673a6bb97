// The size budget of the product code (src/, plugins/, main.ts), measured with Deno's own
// parser (Deno.lint.runPlugin, so only inside `deno test`): files at most 400 lines, functions
// at most 80, the tool path's own targets tighter (issue 39), and an allow-list of what was
// over when the budget came. The allow-list may only shrink: an entry may not grow past the
// size it records, and one that fits the budget again must be removed. Do not add entries.

/** Lines of each file and of each function, by `path` and `path:Class.method` (or `path:name`). */
export interface Sizes {
  files: Map<string, number>;
  functions: Map<string, number>;
}

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;
/** Stages (and every function of a stage file) are short: one step each. */
export const MAX_STAGE_LINES = 40;

/** Files whose every function is a stage or a stage's helper. */
export const STAGE_FILES: RegExp = /^src\/(agent\/(call_stages|turn_kernel)|app\/\w+_stages)\.ts$/;

/** The tool path's targets (issue 39), tighter than the budget. */
export const TARGETS: Readonly<Record<string, number>> = {
  "src/agent/call_driver.ts": 200,
  "src/agent/agent_loop.ts:runAgentLoop": 60,
  "src/agent/conversation.ts:Conversation.#send": 40,
};

/**
 * What was over the budget when it came, each with the size it may not exceed. Entries may be
 * removed, never added.
 */
export const ALLOW_LIST: Readonly<Record<string, number>> = {
  "src/shell/split_command.ts": 575,
  "src/config/settings.ts": 594,
  "src/ui/repl.ts": 510,
  "src/permissions/policy_approver.ts": 467,
  "src/cli/args.ts": 457,
  "src/gate/file_gate.ts": 453,
  "src/mcp/mcp_servers.ts": 425,
  "src/providers/text_tool_calls/scanner.ts:scan": 167,
  "src/sessions/replay.ts:replayEvents": 144,
  "src/cli/args.ts:parseCommand": 142,
  "src/sandbox/workers/deny_guard.ts:installDenyGuard": 136,
  "src/cli/run_repl.ts:runRepl": 138,
  "src/cli/run_conversation.ts:runConversation": 133,
  "src/ui/repl.ts:Repl.constructor": 123,
  "src/providers/ollama.ts:createOllamaProvider": 120,
  "src/providers/anthropic/stream_reader.ts:readMessageStream": 119,
  "src/shell/split_command.ts:scanList": 115,
  "src/shell/script_checks.ts:readSedScript": 110,
  "src/cli/args.ts:parseSubcommand": 109,
  "src/cli/commands/sessions_command.ts:runSessionsCommand": 107,
  "src/cli/prompt_ahead.ts:startAhead": 103,
  "src/mcp/mcp_server.ts:connectMcpServer": 110,
  "src/cli/grant_flags.ts:parseGrantFlags": 101,
  "src/ui/render_text.ts:createTextRenderer": 100,
  "src/app/run_sessions.ts:runSessions": 99,
  "src/code_index/index_workspace.ts:indexWorkspace": 92,
  "src/config/settings.ts:loadSettings": 92,
  "src/sandbox/commands/command_sandbox_probe.ts:probeCommandSandbox": 93,
  "src/sandbox/workers/tool_catalog.ts:loadToolCatalog": 92,
  "src/providers/openai_compat/wire_messages.ts:toWireMessages": 88,
  "src/cli/commands/mcp_command.ts:addServer": 91,
  "src/providers/ollama.ts:complete": 86,
  "src/ui/prompter.ts:createPrompter": 83,
  "src/ui/repl.ts:Repl.run": 81,
  "src/cli/terminal_front_end.ts:terminalFrontEnd": 81,
  "src/permissions/project_trust.ts:checkProjectTrust": 88,
};

/** How a function is named: its declaration, its method and class, or its variable. */
function nameOf(node: Deno.lint.Node): string {
  const parent = (node as { parent?: Deno.lint.Node }).parent;
  if (node.type === "FunctionDeclaration" && node.id) return node.id.name;
  if (parent?.type === "MethodDefinition") {
    const key = parent.key;
    const owner = (parent as { parent?: { parent?: Deno.lint.Node } }).parent?.parent;
    const klass = owner?.type === "ClassDeclaration" && owner.id ? `${owner.id.name}.` : "";
    if (key.type === "PrivateIdentifier") return `${klass}#${key.name}`;
    return `${klass}${key.type === "Identifier" ? key.name : "<computed>"}`;
  }
  if (parent?.type === "Property" && parent.key.type === "Identifier") return parent.key.name;
  if (parent?.type === "VariableDeclarator" && parent.id.type === "Identifier") {
    return parent.id.name;
  }
  return "<anonymous>";
}

/**
 * Measures files and their functions (a name used twice in a file keeps its largest).
 *
 * @param root The repository.
 * @param files Paths relative to it.
 * @returns The sizes.
 */
export function measureSizes(root: string, files: readonly string[]): Sizes {
  const sizes: Sizes = { files: new Map(), functions: new Map() };
  let path = "";
  const plugin: Deno.lint.Plugin = {
    name: "size",
    rules: {
      functions: {
        create(context) {
          const line = (offset: number) =>
            context.sourceCode.text.slice(0, offset).split("\n").length;
          const measure = (node: Deno.lint.Node) => {
            const lines = line(node.range[1]) - line(node.range[0]) + 1;
            const key = `${path}:${nameOf(node)}`;
            sizes.functions.set(key, Math.max(lines, sizes.functions.get(key) ?? 0));
          };
          return {
            FunctionDeclaration: measure,
            FunctionExpression: measure,
            ArrowFunctionExpression: measure,
          };
        },
      },
    },
  };
  for (const file of files) {
    path = file;
    const text = Deno.readTextFileSync(`${root}/${file}`);
    sizes.files.set(file, text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
    Deno.lint.runPlugin(plugin, file, text);
  }
  return sizes;
}

/**
 * What breaks the budget: sizes over it that the allow-list does not cover, allowed entries
 * that grew, stale entries (gone, or within the budget again), and missed targets.
 *
 * @param sizes What measureSizes found.
 * @param allow The allow-list (ALLOW_LIST unless a test gives another).
 * @returns One line per problem, sorted.
 */
export function budgetProblems(sizes: Sizes, allow = ALLOW_LIST): string[] {
  const problems: string[] = [];
  const check = (key: string, lines: number, limit: number, what: string) => {
    const allowed = allow[key];
    if (lines > (TARGETS[key] ?? Infinity)) {
      problems.push(`${key}: ${lines} lines, over its target of ${TARGETS[key]}`);
    } else if (allowed !== undefined && lines <= limit) {
      problems.push(`${key}: ${lines} lines fit the budget now: remove it from the allow-list`);
    } else if (allowed !== undefined && lines > allowed) {
      problems.push(`${key}: ${lines} lines, grown past the ${allowed} the allow-list allows`);
    } else if (allowed === undefined && lines > limit) {
      problems.push(`${key}: ${lines} lines, over the ${limit} a ${what} may have`);
    }
  };
  for (const [file, lines] of sizes.files) check(file, lines, MAX_FILE_LINES, "file");
  for (const [fn, lines] of sizes.functions) {
    const stage = STAGE_FILES.test(fn.slice(0, fn.indexOf(":")));
    check(fn, lines, stage ? MAX_STAGE_LINES : MAX_FUNCTION_LINES, stage ? "stage" : "function");
  }
  for (const key of Object.keys(allow)) {
    if (!sizes.files.has(key) && !sizes.functions.has(key)) {
      problems.push(`${key}: no longer exists: remove it from the allow-list`);
    }
  }
  return problems.sort();
}
