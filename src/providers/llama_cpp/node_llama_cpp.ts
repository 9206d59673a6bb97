// The boundary to npm:node-llama-cpp: locates the copy `deno task install-llama` unpacked into
// vendor/llama/, imports it only when an in-process model is used, and narrows the parts we
// call to small typed interfaces. Nothing else in the project touches the library's objects.

import { fileURLToPath } from "node:url";
import { harnessUrl } from "../../platform/own_modules.ts";

/** The node-llama-cpp version `deno task install-llama` installs and this module expects. */
export const NODE_LLAMA_CPP_VERSION = "3.21.1";

/** Where install-llama unpacks this platform's prebuilt binaries (gitignored). */
export const PLATFORM_DIR = fileURLToPath(harnessUrl("vendor/llama/platform/"));

/** Where install-llama unpacks the package (gitignored). */
export const NODE_LLAMA_CPP_DIR = fileURLToPath(harnessUrl("vendor/llama/node-llama-cpp/"));

/** One item of node-llama-cpp's chat history (`ChatHistoryItem`). */
export type LlamaChatHistoryItem =
  | { type: "system"; text: string }
  | { type: "user"; text: string }
  | { type: "model"; response: LlamaModelResponseItem[] };

/** A part of a model response: text, a function call with its result, or a segment. */
export type LlamaModelResponseItem =
  | string
  | {
    type: "functionCall";
    name: string;
    description?: string;
    params: unknown;
    result: unknown;
    startsNewChunk?: boolean;
  }
  | { type: "segment"; segmentType: "thought" | "comment"; text: string; ended: boolean };

/** The function definitions passed to generateResponse (`ChatModelFunctions`). */
export type LlamaFunctions = Record<string, { description?: string; params?: unknown }>;

/** What LlamaChat.generateResponse returns (the fields we read). */
export interface LlamaChatResult {
  response: string;
  functionCalls?: { functionName: string; params: unknown }[];
  metadata: { stopReason: string };
}

/** Options of LlamaChat.generateResponse that we use. */
export interface LlamaGenerateOptions {
  functions?: LlamaFunctions;
  documentFunctionParams?: boolean;
  onTextChunk?: (text: string) => void;
  onResponseChunk?: (chunk: { type?: string; segmentType?: string; text: string }) => void;
  onFunctionCallParamsChunk?: (chunk: { callIndex: number; functionName: string }) => void;
  signal?: AbortSignal;
  stopOnAbortSignal?: boolean;
  maxTokens?: number;
  temperature?: number;
}

/** A LlamaChat over one context sequence. */
export interface LlamaChat {
  generateResponse(
    history: LlamaChatHistoryItem[],
    options: LlamaGenerateOptions,
  ): Promise<LlamaChatResult>;
  readonly chatWrapper: { readonly wrapperName?: string };
  dispose(): void;
}

/** The parts of LlamaContextSequence we use. */
export interface LlamaContextSequence {
  readonly tokenMeter: { readonly usedInputTokens: number; readonly usedOutputTokens: number };
  /** Every token now in the sequence: the prompt (cached prefix included) and the answer. */
  readonly contextTokens: readonly unknown[];
}

/** The parts of LlamaContext we use. */
export interface LlamaContext {
  readonly contextSize: number;
  getSequence(): LlamaContextSequence;
  dispose(): Promise<void>;
}

/** The parts of LlamaModel we use. */
export interface LlamaModel {
  readonly trainContextSize: number;
  createContext(
    options: { contextSize: number; sequences: number; threads: number },
  ): Promise<LlamaContext>;
  dispose(): Promise<void>;
}

/** The parts of Llama (the loaded native bindings) we use. */
export interface Llama {
  readonly gpu: string | false;
  loadModel(options: {
    modelPath: string;
    gpuLayers?: number | "auto";
    onLoadProgress?: (fraction: number) => void;
  }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}

/** The module surface: getLlama and the LlamaChat class. */
export interface NodeLlamaCpp {
  getLlama(options: {
    gpu: false | "auto";
    build: "never";
    usePrebuiltBinaries: true;
    skipDownload: true;
    progressLogs: false;
    logLevel: "error" | "warn";
    logger: (level: string, message: string) => void;
  }): Promise<Llama>;
  LlamaChat: new (options: { contextSequence: LlamaContextSequence }) => LlamaChat;
}

/**
 * What to do to run a model in-process: a source checkout installs node-llama-cpp with a task;
 * a compiled binary cannot load it at all, so it is sent to a model server or a checkout.
 *
 * @param standalone Whether this is a `deno compile`d binary (Deno.build.standalone).
 * @returns The advice, one sentence.
 *
 * @example
 * ```ts
 * import { installLlamaAdvice } from "./node_llama_cpp.ts";
 * if (!installLlamaAdvice(false).includes("deno task install-llama")) throw new Error();
 * if (!installLlamaAdvice(true).startsWith("this compiled binary")) throw new Error();
 * ```
 */
export function installLlamaAdvice(standalone: boolean = Deno.build.standalone): string {
  return standalone
    ? "this compiled binary cannot run models in-process: start a model server (for example " +
      '"ollama serve") or use a source checkout, where "deno task install-llama" installs it'
    : 'run "deno task install-llama"';
}

/**
 * Imports the vendored node-llama-cpp. Fails with a sentence for the user when it is not
 * installed. Never triggers a download or a source build of llama.cpp.
 *
 * @returns The module, or the reason it cannot be used.
 * @example
 * ```ts
 * import { importNodeLlamaCpp } from "./node_llama_cpp.ts";
 * const lib = await importNodeLlamaCpp();
 * if (!lib.ok && !lib.reason.includes("install-llama")) throw new Error(lib.reason);
 * ```
 */
export async function importNodeLlamaCpp(): Promise<
  { ok: true; module: NodeLlamaCpp } | { ok: false; reason: string }
> {
  const entry = new URL("dist/index.js", `file://${NODE_LLAMA_CPP_DIR}`);
  const notInstalled = {
    ok: false as const,
    reason: `node-llama-cpp is not installed: ${installLlamaAdvice()}`,
  };
  try {
    await Deno.stat(entry);
  } catch {
    return notInstalled;
  }
  try {
    // The library reads this when its config module loads: never fetch or build llama.cpp.
    Deno.env.set("NODE_LLAMA_CPP_SKIP_DOWNLOAD", "true");
  } catch {
    // Without env access the explicit getLlama options below still forbid builds.
  }
  let loaded: unknown;
  try {
    loaded = await import(entry.href);
  } catch (error) {
    return { ok: false, reason: `cannot import node-llama-cpp: ${errorText(error)}` };
  }
  if (!isNodeLlamaCpp(loaded)) {
    return { ok: false, reason: "node-llama-cpp has an unexpected shape" };
  }
  return { ok: true, module: loaded };
}

/** The parts of node-llama-cpp's ModelDownloader we use. */
export interface LlamaModelDownloader {
  /** Where the (first) file is saved. */
  readonly entrypointFilePath: string;
  /** Bytes of all files, from the server's Content-Length. */
  readonly totalSize: number;
  /** Bytes on disk so far (a resumed download starts above 0). */
  readonly downloadedSize: number;
  download(options?: { signal?: AbortSignal }): Promise<string>;
  cancel(options?: { deleteTempFile?: boolean }): Promise<void>;
}

/** The parts of node-llama-cpp's GgufFileInfo we read. */
export interface GgufFileInfo {
  /** Where the header (metadata and tensor infos) ends. */
  readonly infoEndOffset: number;
  readonly fullTensorInfo?: readonly {
    name: string;
    dimensions: readonly (number | bigint)[];
    ggmlType: number;
    /** Where the tensor's data starts in the file. */
    fileOffset: number | bigint;
  }[];
}

/** What node-llama-cpp offers for fetching and checking model files. */
export interface NodeLlamaCppDownloads {
  createModelDownloader(options: {
    modelUri: string;
    dirPath: string;
    showCliProgress: false;
    skipExisting: true;
    deleteTempFileOnCancel: false;
    onProgress?: (status: { totalSize: number; downloadedSize: number }) => void;
  }): Promise<LlamaModelDownloader>;
  /** Parses a GGUF file's header and metadata; throws on a file that is not one. */
  readGgufFileInfo(path: string, options: {
    readTensorInfo: boolean;
    sourceType: "filesystem";
    logWarnings: false;
  }): Promise<GgufFileInfo>;
  /** The http(s) URL an `hf:` reference resolves to (the URL itself for a URL). */
  resolveModelUrl(uri: string): Promise<string>;
}

/**
 * Imports node-llama-cpp's model downloader (which resolves `hf:` references, downloads in
 * parallel ranges and resumes from the `.ipull` file an interrupted download leaves) and
 * its GGUF reader.
 *
 * @returns The functions, or the reason they cannot be used.
 */
export async function importModelDownloads(): Promise<
  { ok: true; module: NodeLlamaCppDownloads } | { ok: false; reason: string }
> {
  const lib = await importNodeLlamaCpp();
  if (!lib.ok) return lib;
  const module = lib.module as unknown as Record<string, unknown>;
  let uris: Record<string, unknown>;
  try {
    uris = await import(
      new URL("dist/utils/parseModelUri.js", `file://${NODE_LLAMA_CPP_DIR}`).href
    );
  } catch (error) {
    return {
      ok: false,
      reason: `cannot import node-llama-cpp's URI resolver: ${errorText(error)}`,
    };
  }
  const { createModelDownloader, readGgufFileInfo } = module;
  const { parseModelUri, resolveParsedModelUri } = uris;
  if (
    typeof createModelDownloader !== "function" || typeof readGgufFileInfo !== "function" ||
    typeof parseModelUri !== "function" || typeof resolveParsedModelUri !== "function"
  ) {
    return { ok: false, reason: "node-llama-cpp has an unexpected shape" };
  }
  type Parsed = { type: "resolved"; resolvedUrl: string } | { type: "unresolved" } | null;
  return {
    ok: true,
    module: {
      createModelDownloader: createModelDownloader as NodeLlamaCppDownloads[
        "createModelDownloader"
      ],
      readGgufFileInfo: readGgufFileInfo as NodeLlamaCppDownloads["readGgufFileInfo"],
      async resolveModelUrl(uri) {
        const parsed = (parseModelUri as (uri: string) => Parsed)(uri);
        if (parsed === null) return uri;
        const resolved = parsed.type === "resolved"
          ? parsed
          : await (resolveParsedModelUri as (p: Parsed) => Promise<{ resolvedUrl: string }>)(
            parsed,
          );
        return resolved.resolvedUrl;
      },
    },
  };
}

/** True when the package installed in vendor/llama is the version this module expects. */
export async function installedVersion(): Promise<string | undefined> {
  try {
    const text = await Deno.readTextFile(`${NODE_LLAMA_CPP_DIR}package.json`);
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "version" in parsed) {
      return typeof parsed.version === "string" ? parsed.version : undefined;
    }
  } catch {
    // not installed
  }
  return undefined;
}

function isNodeLlamaCpp(value: unknown): value is NodeLlamaCpp {
  return typeof value === "object" && value !== null &&
    "getLlama" in value && typeof value.getLlama === "function" &&
    "LlamaChat" in value && typeof value.LlamaChat === "function";
}

/** The message of a thrown value, on one line. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").map((line) => line.trim()).filter(Boolean).join(" ");
}
