// In-process provider: runs a local .gguf model through npm:node-llama-cpp (llama.cpp
// bindings) instead of a model server. Like openai_compat.ts it turns canonical messages into
// one assistant turn and returns tool calls without running them: LlamaChat.generateResponse
// with `functions` stops at the calls, and our loop answers them in the next request.

import { basename } from "node:path";
import type { AgentError, Result } from "../errors.ts";
import { err, ok } from "../errors.ts";
import type { ToolCall, ToolSchema } from "../messages.ts";
import type {
  AssistantTurn,
  ModelRequest,
  Provider,
  ProviderEvent,
  StopReason,
} from "./provider.ts";
import { toChatHistory } from "./llama_cpp/chat_history.ts";
import { dropOptionalNulls, type JsonValue, toGrammarSchema } from "./llama_cpp/function_schema.ts";
import {
  errorText,
  importNodeLlamaCpp,
  type Llama,
  type LlamaChat,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaFunctions,
  type LlamaModel,
} from "./llama_cpp/node_llama_cpp.ts";

/** The largest default context: bigger contexts cost memory most users do not have. */
export const DEFAULT_MAX_CTX_SIZE = 8192;

/** Options of {@linkcode createLlamaCppProvider}. */
export interface LlamaCppOptions {
  /** Path of the .gguf file. */
  modelFile: string;
  /** Context size in tokens (default: the model's training context, capped at 8192). */
  ctxSize?: number;
  /** "off" runs on the CPU only (the tested path); "auto" uses a GPU when one is usable. */
  gpu?: "auto" | "off";
  /** Called with the load progress from 0 to 1. */
  onProgress?: (fraction: number) => void;
  /**
   * CPU threads for evaluation (default: the number of logical CPUs). node-llama-cpp's own
   * default is at least 4, which on a 2-CPU machine makes llama.cpp's threads spin at
   * barriers and turns milliseconds per token into hundreds.
   */
  threads?: number;
}

/** A provider over a loaded model; `close()` frees it. */
export type LlamaCppProvider = Provider & {
  /** Context size in use, in tokens. */
  readonly contextSize: number;
  /** Frees the context, the model and the native bindings. */
  close(): Promise<void>;
};

/**
 * Loads a .gguf model in this process and returns a provider for it. A missing, unreadable
 * or invalid file, or a missing node-llama-cpp, is an error the CLI prints in one line.
 *
 * @param options The model file and load options.
 * @returns The provider, or a `usage` error such as
 *   `Cannot load model file "x.gguf": not a GGUF file`.
 * @example
 * ```ts
 * import { createLlamaCppProvider } from "./llama_cpp.ts";
 * const result = await createLlamaCppProvider({ modelFile: "missing.gguf" });
 * if (result.ok || !result.error.message.includes("no such file")) throw new Error();
 * ```
 */
export async function createLlamaCppProvider(
  options: LlamaCppOptions,
): Promise<Result<LlamaCppProvider, AgentError & { kind: "usage" }>> {
  const { modelFile } = options;
  const fail = (reason: string) =>
    err({ kind: "usage" as const, message: `Cannot load model file "${modelFile}": ${reason}` });

  const fileProblem = await checkGgufFile(modelFile);
  if (fileProblem) return fail(fileProblem);
  if (
    options.ctxSize !== undefined && !(Number.isInteger(options.ctxSize) && options.ctxSize > 0)
  ) {
    return fail(`context size must be a positive integer, got ${options.ctxSize}`);
  }

  const lib = await importNodeLlamaCpp();
  if (!lib.ok) return fail(lib.reason);

  const logs: string[] = [];
  let llama: Llama | undefined;
  let model: LlamaModel | undefined;
  try {
    llama = await lib.module.getLlama({
      gpu: options.gpu === "auto" ? "auto" : false,
      build: "never",
      usePrebuiltBinaries: true,
      skipDownload: true,
      progressLogs: false,
      logLevel: "error",
      logger: (_level, message) => {
        if (logs.length < 20) logs.push(message.trim());
      },
    });
    const onProgress = options.onProgress;
    model = await llama.loadModel({
      modelPath: modelFile,
      gpuLayers: options.gpu === "auto" ? "auto" : 0,
      ...(onProgress ? { onLoadProgress: (fraction: number) => onProgress(fraction) } : {}),
    });
    const contextSize = options.ctxSize ??
      Math.min(model.trainContextSize || DEFAULT_MAX_CTX_SIZE, DEFAULT_MAX_CTX_SIZE);
    const threads = options.threads ?? Math.max(1, navigator.hardwareConcurrency || 1);
    const context = await model.createContext({ contextSize, sequences: 1, threads });
    const sequence = context.getSequence();
    const chat = new lib.module.LlamaChat({ contextSequence: sequence });
    return ok(new LoadedLlamaProvider({ llama, model, context, sequence, chat, modelFile }));
  } catch (error) {
    await model?.dispose().catch(() => {});
    await llama?.dispose().catch(() => {});
    // llama.cpp logs the specific reason first ("gguf_init_from_reader: failed to read ...");
    // the thrown error only says "Failed to load model".
    const first = logs.find((line) => line !== "");
    const detail = first?.replace(/^\w+: /, "").replace(/^(error loading model: )+/, "");
    return fail(detail || errorText(error));
  }
}

/** Returns why `path` is not a loadable GGUF file, or undefined when it looks fine. */
async function checkGgufFile(path: string): Promise<string | undefined> {
  let file: Deno.FsFile | undefined;
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) return "is a directory";
    file = await Deno.open(path, { read: true });
    const magic = new Uint8Array(4);
    const read = await file.read(magic);
    if (read !== 4 || new TextDecoder().decode(magic) !== "GGUF") return "not a GGUF file";
    return undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "no such file";
    if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
    return errorText(error);
  } finally {
    file?.close();
  }
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  chat: LlamaChat;
  modelFile: string;
}

/** The provider over one loaded model; turns run one at a time on its single sequence. */
class LoadedLlamaProvider implements LlamaCppProvider {
  readonly name = "llama.cpp";
  readonly model: string;
  readonly contextSize: number;
  #loaded: Loaded;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(loaded: Loaded) {
    this.#loaded = loaded;
    this.model = basename(loaded.modelFile);
    this.contextSize = loaded.context.contextSize;
  }

  complete(
    request: ModelRequest,
    onEvent?: (event: ProviderEvent) => void,
  ): Promise<AssistantTurn> {
    const turn = this.#queue.then(() => this.#complete(request, onEvent));
    this.#queue = turn.catch(() => {});
    return turn;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    const { chat, context, model, llama } = this.#loaded;
    chat.dispose();
    await context.dispose().catch(() => {});
    await model.dispose().catch(() => {});
    await llama.dispose().catch(() => {});
  }

  async #complete(
    request: ModelRequest,
    onEvent?: (event: ProviderEvent) => void,
  ): Promise<AssistantTurn> {
    const signal = request.signal;
    if (signal?.aborted) return emptyTurn("aborted");
    if (this.#closed) return this.#errorTurn("the model was closed");
    const sequence = this.#loaded.sequence;
    const before = {
      usedInputTokens: sequence.tokenMeter.usedInputTokens,
      usedOutputTokens: sequence.tokenMeter.usedOutputTokens,
    };
    const startedCalls = new Set<number>();
    let reasoning = "";
    try {
      const result = await this.#loaded.chat.generateResponse(toChatHistory(request.messages), {
        ...functionsOption(request.tools),
        ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
        documentFunctionParams: true,
        onTextChunk: (text) => {
          if (text !== "") onEvent?.({ type: "text_delta", text });
        },
        onResponseChunk: (chunk) => {
          if (chunk.type === "segment" && chunk.segmentType === "thought" && chunk.text !== "") {
            reasoning += chunk.text;
            onEvent?.({ type: "reasoning_delta", text: chunk.text });
          }
        },
        onFunctionCallParamsChunk: ({ callIndex, functionName }) => {
          if (startedCalls.has(callIndex)) return;
          startedCalls.add(callIndex);
          onEvent?.({ type: "tool_call_started", index: callIndex, name: functionName });
        },
        ...(signal ? { signal, stopOnAbortSignal: true } : {}),
      });
      // The meter counts only tokens evaluated now; a prefix kept from the last turn is not
      // evaluated again, so the prompt's size is what the sequence holds minus the answer
      // (a server reports it the same way: the whole prompt, cached or not), and the rest of
      // it was reused.
      const completionTokens = sequence.tokenMeter.usedOutputTokens - before.usedOutputTokens;
      const evaluated = sequence.tokenMeter.usedInputTokens - before.usedInputTokens;
      const promptTokens = Math.max(evaluated, sequence.contextTokens.length - completionTokens);
      const usage = { promptTokens, completionTokens, reusedTokens: promptTokens - evaluated };
      if (signal?.aborted) {
        return { text: result.response, reasoning, toolCalls: [], stopReason: "aborted", usage };
      }
      const toolCalls = (result.functionCalls ?? []).map((call) =>
        toToolCall(call.functionName, call.params, request.tools)
      );
      const stopReason: StopReason = toolCalls.length > 0
        ? "tool_calls"
        : result.metadata.stopReason === "maxTokens"
        ? "length"
        : "stop";
      return { text: result.response, reasoning, toolCalls, stopReason, usage };
    } catch (error) {
      if (signal?.aborted) return emptyTurn("aborted");
      return this.#errorTurn(errorText(error));
    }
  }

  #errorTurn(message: string): AssistantTurn {
    return {
      ...emptyTurn("error"),
      error: { kind: "provider_stream", baseUrl: this.model, message, inProcess: true },
    };
  }
}

function emptyTurn(stopReason: StopReason): AssistantTurn {
  return { text: "", reasoning: "", toolCalls: [], stopReason };
}

function functionsOption(tools: readonly ToolSchema[]): { functions?: LlamaFunctions } {
  if (tools.length === 0) return {};
  const functions: LlamaFunctions = {};
  for (const tool of tools) {
    const params = toGrammarSchema(tool.parameters);
    functions[tool.name] = {
      description: tool.description,
      ...(params ? { params } : {}),
    };
  }
  return { functions };
}

function toToolCall(name: string, params: unknown, tools: readonly ToolSchema[]): ToolCall {
  const schema = tools.find((tool) => tool.name === name)?.parameters ?? {};
  const args = params === undefined ? {} : dropOptionalNulls(params as JsonValue, schema);
  return { id: `call_${crypto.randomUUID().slice(0, 8)}`, name, arguments: JSON.stringify(args) };
}
