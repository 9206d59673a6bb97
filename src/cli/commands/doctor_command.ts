// `harness doctor [--json]`: opens the model server as a run would (discovery, model, window)
// and probes it (src/providers/server_probe/): the window, the chat template's family, whether
// tool calls come back native, as text or not at all, prompt and generation speed, vision.
// Prints what it found and what to set; exit 0 when harness can work with it, 1 otherwise.

import type { RunFlags } from "../../app/run_flags.ts";
import { type CommandIO, settingsOrExit } from "../command_io.ts";
import { EXIT } from "../../app/exit_codes.ts";
import { openProvider } from "../../app/open_provider.ts";
import type { Settings } from "../../config/settings.ts";
import { formatAgentError } from "../../errors.ts";
import { probeServer, type ServerProbe } from "../../providers/server_probe/probe_server.ts";
import { CANARY_MAX_TOKENS } from "../../providers/server_probe/tool_call_canary.ts";
import {
  type EmbeddingProbe,
  probeEmbeddings,
} from "../../providers/embeddings/probe_embeddings.ts";
import { jsonTerminalSafe, terminalSafe } from "../../platform/terminal_text.ts";

/** What `harness doctor --json` prints: the probe's findings and the verdict. */
export interface DoctorReport {
  context_window: number | null;
  tool_calls: ServerProbe["toolCalls"] | null;
  template: string | null;
  prompt_tokens_per_s: number | null;
  generated_tokens_per_s: number | null;
  vision: boolean | null;
  server: string | null;
  base_url: string;
  model: string | null;
  context_source: string | null;
  /** With tool_calls "text": the format family the model writes. */
  text_format?: string;
  /** search_code's embedding model (embedding_model, or one the local server lists). */
  embeddings?: EmbeddingProbe;
  usable: boolean;
  /** Why harness cannot work with the server as it is (empty when usable). */
  problems: string[];
  /** Flags and config to use. */
  advice: string[];
}

/** A window below this makes the user shorten files and output often. */
const SMALL_WINDOW = 16_384;

/** Where the command writes (stdout and stderr, or a test's sinks) and Ctrl-C. */
export interface DoctorIO extends CommandIO {
  print(text: string): void;
  signal?: AbortSignal;
}

/**
 * Runs `harness doctor`; returns the exit code.
 *
 * @param command The run flags (server, model, window...) and `--json`.
 * @param io Where the report and errors go.
 * @returns 0 when the server is usable, 1 with the reasons otherwise, 2 for a config error.
 */
export async function runDoctorCommand(
  command: { flags: RunFlags; json?: boolean },
  io: DoctorIO,
): Promise<number> {
  const settings = await settingsOrExit(command.flags, io);
  if (typeof settings === "number") return settings;
  const report = await examine(settings, io.signal);
  // The server names the model and writes the errors: nothing it sends may steer the terminal.
  // A hostile server's model name or error must not steer the terminal (terminal_text.ts).
  if (command.json) io.print(`${jsonTerminalSafe(JSON.stringify(report))}\n`);
  else io.print(terminalSafe(formatReport(report)));
  return report.usable ? EXIT.ok : EXIT.runtime;
}

/** Opens the provider as a run does (without reading tool calls from text) and probes it. */
async function examine(settings: Settings, signal?: AbortSignal): Promise<DoctorReport> {
  const failed = (problem: string, baseUrl = settings.baseUrl): DoctorReport => ({
    context_window: null,
    tool_calls: null,
    template: null,
    prompt_tokens_per_s: null,
    generated_tokens_per_s: null,
    vision: null,
    server: null,
    base_url: baseUrl,
    model: settings.model ?? null,
    context_source: null,
    usable: false,
    problems: [problem],
    advice: [],
  });
  const opened = await openProvider({ ...settings, textToolCalls: false });
  if (!opened.ok) return failed(formatAgentError(opened.error));
  const { provider, contextLength, contextSource } = opened.value;
  const baseUrl = opened.value.baseUrl ?? settings.baseUrl;
  try {
    const probed = await probeServer(provider, baseUrl, {
      ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
      ...(signal ? { signal } : {}),
    });
    if (!probed.ok) return failed(formatAgentError(probed.error), baseUrl);
    const probe = probed.value;
    const embeddings = await probeEmbeddings({
      ...(settings.embeddingModel ? { embeddingModel: settings.embeddingModel } : {}),
      ...(settings.embeddingBaseUrl ? { embeddingBaseUrl: settings.embeddingBaseUrl } : {}),
      server: { baseUrl, provider: provider.name },
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    }, signal);
    const report: DoctorReport = {
      context_window: contextLength ?? null,
      tool_calls: probe.toolCalls,
      template: probe.template,
      prompt_tokens_per_s: probe.promptTokensPerS,
      generated_tokens_per_s: probe.generatedTokensPerS,
      vision: probe.vision,
      server: probe.server,
      base_url: baseUrl,
      model: provider.model,
      context_source: contextSource ?? null,
      ...(probe.textFormat ? { text_format: probe.textFormat } : {}),
      embeddings,
      usable: true,
      problems: [],
      advice: [],
    };
    judge(report, probe, settings);
    return report;
  } finally {
    await opened.value.close?.();
  }
}

/** Fills in the problems (which make the server unusable) and the advice. */
function judge(report: DoctorReport, probe: ServerProbe, settings: Settings): void {
  const { problems, advice } = report;
  const llamaServer = probe.server === "llama-server";
  if (probe.toolCalls === "none") {
    const cut = probe.canaryCut ? ` (it was still writing after ${CANARY_MAX_TOKENS} tokens)` : "";
    problems.push(
      `The model made no tool call when asked to call the one tool offered${cut}: harness ` +
        "needs tool calls. Pick a model trained for tools" +
        (llamaServer ? ', and start llama-server with "--jinja"' : ""),
    );
  }
  if (probe.toolCalls === "text" && !settings.textToolCalls) {
    problems.push(
      "The model writes its tool calls as text and reading them from text is off: drop " +
        '--no-text-tool-calls, or set "text_tool_calls": true in the config',
    );
  }
  report.usable = problems.length === 0;
  const server = `--base-url ${report.base_url}${report.model ? ` --model ${report.model}` : ""}`;
  advice.push(
    `Use ${server} (or "base_url" and "model" in ~/.config/harness/config.jsonc)` +
      (settings.discover ? "; without them harness looks for a local server each time" : ""),
  );
  if (report.context_source?.startsWith("assumed")) {
    advice.push(
      "The server does not state its context window: pass --context-length N with the " +
        'window it was started with (config "context_length")',
    );
  } else if (report.context_window !== null && report.context_window < SMALL_WINDOW) {
    advice.push(
      `A window of ${report.context_window} tokens fills quickly with files and command ` +
        `output: raise it if memory allows (${raiseWindow(probe.server)})`,
    );
  }
  if (probe.toolCalls === "text") {
    advice.push(
      `Tool calls come back as text${
        probe.textFormat ? ` (${probe.textFormat} format)` : ""
      }: harness reads them (keep "text_tool_calls" on)` +
        (llamaServer ? '; start llama-server with "--jinja" to have it parse them itself' : ""),
    );
  }
  if (report.prompt_tokens_per_s !== null && report.context_window !== null) {
    const seconds = Math.round(report.context_window / report.prompt_tokens_per_s);
    advice.push(
      `Reading a full ${report.context_window}-token prompt takes about ${seconds} s at this ` +
        "prompt speed; the server's prompt cache spares it on later turns",
    );
  }
}

function raiseWindow(server: string): string {
  if (server.startsWith("Ollama")) return '--num-ctx N, config "num_ctx"';
  if (server === "llama-server") return "llama-server -c N";
  if (server === "vLLM") return "vllm serve --max-model-len N";
  if (server === "LM Studio") return "the model's context length in LM Studio";
  if (server.startsWith("the in-process")) return '--ctx-size N, config "ctx_size"';
  return "the server's context size";
}

function embeddingLine(probe: EmbeddingProbe): string {
  switch (probe.status) {
    case "ok":
      return `"${probe.model}" at ${probe.baseUrl}, ${probe.dimensions} numbers per vector ` +
        "(search_code is offered)";
    case "failed":
      return `"${probe.model}" at ${probe.baseUrl} failed: ${probe.problem}`;
    case "off":
      return 'off ("embedding_model": "off"): search_code is not offered';
    case "none":
      return "none found: search_code is not offered (pull one, e.g. " +
        '"ollama pull nomic-embed-text", or set "embedding_model")';
    default: {
      const never: never = probe;
      throw new Error(`unknown embedding probe ${JSON.stringify(never)}`);
    }
  }
}

function yesNo(value: boolean | null): string {
  return value === null ? "not stated by the server" : value ? "yes" : "no";
}

function speed(value: number | null): string {
  return value === null ? "unknown (the server sent no token counts)" : `${value} tokens/s`;
}

/**
 * The report as text, for a person.
 *
 * @param report What `examine` found.
 * @returns Lines ending in a newline.
 *
 * @example
 * ```ts
 * import { formatReport } from "./doctor_command.ts";
 * const text = formatReport({
 *   context_window: null, tool_calls: null, template: null, prompt_tokens_per_s: null,
 *   generated_tokens_per_s: null, vision: null, server: null, base_url: "http://127.0.0.1:9/v1",
 *   model: null, context_source: null, usable: false, problems: ["No server"], advice: [],
 * });
 * if (!text.includes("Not usable: No server")) throw new Error(text);
 * ```
 */
export function formatReport(report: DoctorReport): string {
  const lines: string[] = [];
  if (report.server !== null) {
    const model = report.model ? `, model "${report.model}"` : "";
    lines.push(`Server:          ${report.server} at ${report.base_url}${model}`);
    const source = report.context_source ? ` (${report.context_source})` : "";
    lines.push(`Context window:  ${report.context_window ?? "unknown"} tokens${source}`);
    lines.push(`Chat template:   ${report.template ?? "not stated by the server"}`);
    const calls = {
      native: "native: the server parses the model's tool calls",
      text: `text: harness reads them from the answer${
        report.text_format ? ` (${report.text_format})` : ""
      }`,
      none: "none: the model made no tool call",
    };
    lines.push(`Tool calls:      ${report.tool_calls ? calls[report.tool_calls] : "unknown"}`);
    lines.push(`Prompt speed:    ${speed(report.prompt_tokens_per_s)}`);
    lines.push(`Generation:      ${speed(report.generated_tokens_per_s)}`);
    lines.push(`Vision:          ${yesNo(report.vision)}`);
    if (report.embeddings) lines.push(`Embeddings:      ${embeddingLine(report.embeddings)}`);
  }
  for (const advice of report.advice) lines.push(`- ${advice}`);
  if (report.usable) lines.push("Usable: yes");
  for (const problem of report.problems) lines.push(`Not usable: ${problem}`);
  return `${lines.join("\n")}\n`;
}
