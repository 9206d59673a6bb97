// Fetches a GGUF model into the cache folder, once. node-llama-cpp's downloader does the
// work (it resolves `hf:` references, downloads ranges in parallel and keeps an interrupted
// download in `<file>.ipull`, which the next run continues); this module asks the server
// first so a wrong name or a dead network fails in seconds with a sentence (the downloader
// itself retries for minutes), checks what arrived (size, GGUF header, SHA-256 when known)
// and records verified files in `verified.json`, so a later run uses the file without
// touching the network or hashing it again. A file that fails the checks is deleted.

import { basename, join } from "node:path";
import { createHash } from "node:crypto";
import { err, ok, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import type { ModelSource } from "./model_source.ts";
import {
  errorText,
  type GgufFileInfo,
  importModelDownloads,
  type NodeLlamaCppDownloads,
} from "./llama_cpp/node_llama_cpp.ts";

/** What a download reports while it runs. */
export interface DownloadEvents {
  /** The transfer starts: the total size and the bytes kept from an interrupted run. */
  onStart?(info: { totalBytes: number; resumedBytes: number; file: string }): void;
  /** Bytes on disk so far. */
  onProgress?(downloadedBytes: number, totalBytes: number): void;
  /** The transfer ended and the file is being checked (hashing 2.5 GB takes seconds). */
  onVerify?(): void;
}

/** Options of {@linkcode fetchModel}. */
export interface FetchModelOptions extends DownloadEvents {
  /** The folder models are kept in (`<cache>/models`). */
  dir: string;
  /** Stops the download; what arrived so far stays for the next run. */
  signal?: AbortSignal;
  /** How long the first request may take, in ms (default 20 s). */
  probeTimeoutMs?: number;
}

/** A model file ready to load. */
export interface FetchedModel {
  path: string;
  /** False when the verified file was already in the cache. */
  downloaded: boolean;
}

/** What the first request learned. */
export interface ModelProbe {
  url: string;
  /** From Content-Length; undefined when the server did not say. */
  totalBytes?: number;
}

interface IndexEntry {
  file: string;
  size: number;
  mtimeMs: number;
  sha256?: string;
}

type ModelIndex = Record<string, IndexEntry>;

const INDEX_FILE = "verified.json";

function failure(message: string): { ok: false; error: AgentError } {
  return err({ kind: "usage", message });
}

async function readIndex(dir: string): Promise<ModelIndex> {
  try {
    const parsed: unknown = JSON.parse(await Deno.readTextFile(join(dir, INDEX_FILE)));
    const models = (parsed as { models?: unknown } | null)?.models;
    return typeof models === "object" && models !== null ? models as ModelIndex : {};
  } catch {
    return {}; // missing or damaged: files are verified again
  }
}

async function writeIndex(dir: string, index: ModelIndex): Promise<void> {
  const temp = join(dir, `${INDEX_FILE}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  await Deno.writeTextFile(temp, `${JSON.stringify({ version: 1, models: index }, null, 2)}\n`);
  await Deno.rename(temp, join(dir, INDEX_FILE));
}

/**
 * The verified file of `source` in `dir`, without any network request: present when an
 * earlier run downloaded and checked it and the file has not changed since.
 *
 * @param source The model.
 * @param dir The models folder.
 * @returns The file's path, or undefined.
 */
export async function findCachedModel(
  source: ModelSource,
  dir: string,
): Promise<string | undefined> {
  const entry = (await readIndex(dir))[source.uri];
  if (!entry || basename(entry.file) !== entry.file) return undefined;
  if (source.sha256 !== undefined && entry.sha256 !== source.sha256) return undefined;
  const path = join(dir, entry.file);
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size !== entry.size || info.mtime?.getTime() !== entry.mtimeMs) {
      return undefined;
    }
  } catch {
    return undefined;
  }
  return path;
}

/**
 * Asks the server about the model's file (HEAD): a wrong name or an unreachable host fails
 * here at once, and Content-Length tells the size.
 *
 * @param source The model.
 * @param lib node-llama-cpp's downloads (to resolve `hf:` references).
 * @param timeoutMs How long the answer may take.
 */
export async function probeModel(
  source: ModelSource,
  lib: NodeLlamaCppDownloads,
  timeoutMs = 20_000,
): Promise<Result<ModelProbe>> {
  const cannot = `Cannot download model "${source.uri}"`;
  let url: string;
  try {
    url = await lib.resolveModelUrl(source.uri);
  } catch (error) {
    return failure(`${cannot}: ${errorText(error)}: check the reference`);
  }
  let response: Response;
  try {
    response = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const host = URL.canParse(url) ? new URL(url).host : url;
    const reason = error instanceof DOMException && error.name === "TimeoutError"
      ? `no answer in ${Math.round(timeoutMs / 1000)} s`
      : errorText(error);
    return failure(
      `${cannot}: cannot reach "${host}": ${reason}: check the network connection, or start ` +
        "a model server",
    );
  }
  await response.body?.cancel().catch(() => {});
  // A gated repository answers 401 without a token (the downloader tries the user's token);
  // a server without HEAD answers 405 or 501 (the downloader uses GET).
  if (!response.ok && ![401, 403, 405, 501].includes(response.status)) {
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    const what = response.status === 404
      ? "check the repository, file name and revision in --model-file or default_model"
      : "try again later, or name another model with --model-file";
    return failure(`${cannot}: "${url}" answered ${status}: ${what}`);
  }
  const length = Number(response.headers.get("content-length") ?? NaN);
  return ok({ url, ...(Number.isSafeInteger(length) && length > 0 ? { totalBytes: length } : {}) });
}

/**
 * Why `path` is not the model expected, or undefined when it is: its size, its GGUF header
 * and metadata (parsed by node-llama-cpp), and its SHA-256 when one is known.
 *
 * @param path The file.
 * @param expected The size and hash it must have.
 * @param lib node-llama-cpp's GGUF reader.
 */
export async function modelFileProblem(
  path: string,
  expected: { sizeBytes?: number; sha256?: string },
  lib: Pick<NodeLlamaCppDownloads, "readGgufFileInfo">,
): Promise<string | undefined> {
  let size: number;
  try {
    size = (await Deno.stat(path)).size;
  } catch (error) {
    return errorText(error);
  }
  if (expected.sizeBytes !== undefined && size !== expected.sizeBytes) {
    return `it has ${size} bytes, expected ${expected.sizeBytes}`;
  }
  const head = new Uint8Array(4);
  const file = await Deno.open(path);
  try {
    await file.read(head);
  } finally {
    file.close();
  }
  if (new TextDecoder().decode(head) !== "GGUF") return "it does not start like a GGUF file";
  // The reader takes bytes past the end as zeros, so a cut-off file parses: compare offsets.
  let info: GgufFileInfo;
  try {
    info = await lib.readGgufFileInfo(path, {
      readTensorInfo: true,
      sourceType: "filesystem",
      logWarnings: false,
    });
  } catch (error) {
    return `its GGUF header cannot be read: ${errorText(error)}`;
  }
  if (info.infoEndOffset > size) {
    return `its GGUF header is cut off: it ends at byte ${info.infoEndOffset} of ${size}`;
  }
  const tensors = info.fullTensorInfo ?? [];
  if (tensors.length === 0 || tensors.some((tensor) => tensor.name === "")) {
    return "its GGUF header lists no tensors";
  }
  const end = Math.max(...tensors.map((tensor) => Number(tensor.fileOffset) + tensorBytes(tensor)));
  if (end > size) return `its tensor data is cut off: it needs ${end} bytes, the file has ${size}`;
  if (expected.sha256 !== undefined) {
    const actual = await sha256File(path);
    if (actual !== expected.sha256) return `its SHA-256 is ${actual}, expected ${expected.sha256}`;
  }
  return undefined;
}

/** Bytes per block and values per block of the ggml types a GGUF model mostly holds. */
const GGML_BLOCKS: Record<number, [bytes: number, values: number]> = {
  0: [4, 1], // F32
  1: [2, 1], // F16
  2: [18, 32], // Q4_0
  3: [20, 32], // Q4_1
  6: [22, 32], // Q5_0
  7: [24, 32], // Q5_1
  8: [34, 32], // Q8_0
  10: [84, 256], // Q2_K
  11: [110, 256], // Q3_K
  12: [144, 256], // Q4_K
  13: [176, 256], // Q5_K
  14: [210, 256], // Q6_K
  30: [2, 1], // BF16
};

/** A tensor's data size (at least 1 byte for types not in the table). */
function tensorBytes(
  tensor: { dimensions: readonly (number | bigint)[]; ggmlType: number },
): number {
  const values = tensor.dimensions.reduce<number>((n, d) => n * Number(d), 1);
  const block = GGML_BLOCKS[tensor.ggmlType];
  return block ? Math.ceil(values / block[1]) * block[0] : 1;
}

/** The SHA-256 of a file of any size, as hex. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  const buffer = new Uint8Array(4 * 1024 * 1024);
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    hash.update(buffer.subarray(0, n));
  }
  return hash.digest("hex");
}

/**
 * Returns the model's file in `options.dir`, downloading it first when the cache has no
 * verified copy. An interrupted download continues where it stopped.
 *
 * @param source The model.
 * @param options The folder, progress events and a signal.
 * @returns The file, or a `usage` error that names the model and says what to do.
 */
export async function fetchModel(
  source: ModelSource,
  options: FetchModelOptions,
): Promise<Result<FetchedModel>> {
  const cached = await findCachedModel(source, options.dir);
  if (cached !== undefined) return ok({ path: cached, downloaded: false });
  const lib = await importModelDownloads();
  if (!lib.ok) return failure(`Cannot download model "${source.uri}": ${lib.reason}`);
  const probe = await probeModel(source, lib.module, options.probeTimeoutMs);
  if (!probe.ok) return probe;
  return await download(source, lib.module, options);
}

async function download(
  source: ModelSource,
  lib: NodeLlamaCppDownloads,
  options: FetchModelOptions,
): Promise<Result<FetchedModel>> {
  const cannot = `Cannot download model "${source.uri}"`;
  try {
    await Deno.mkdir(options.dir, { recursive: true });
  } catch (error) {
    return failure(`${cannot}: cannot create "${options.dir}": ${errorText(error)}`);
  }
  let reported = false;
  let done = 0;
  const downloader = await lib.createModelDownloader({
    modelUri: source.uri,
    dirPath: options.dir,
    showCliProgress: false,
    skipExisting: true,
    deleteTempFileOnCancel: false,
    onProgress: ({ totalSize, downloadedSize }) => {
      done = downloadedSize;
      if (reported) options.onProgress?.(downloadedSize, totalSize);
    },
  }).catch((error: unknown) => error instanceof Error ? error : new Error(String(error)));
  if (downloader instanceof Error) return failure(`${cannot}: ${errorText(downloader)}`);
  const path = downloader.entrypointFilePath;
  const totalBytes = downloader.totalSize;
  if (source.sizeBytes !== undefined && totalBytes > 0 && totalBytes !== source.sizeBytes) {
    await downloader.cancel({ deleteTempFile: false }).catch(() => {});
    return failure(
      `${cannot}: the server offers ${totalBytes} bytes, expected ${source.sizeBytes}: the ` +
        "file changed upstream; name it with --model-file or default_model to use it anyway",
    );
  }
  done = downloader.downloadedSize;
  options.onStart?.({ totalBytes, resumedBytes: done, file: path });
  reported = true;
  const next = () => {
    const kept = Math.max(done, downloader.downloadedSize);
    return kept > 0
      ? `run harness again to continue from the ${kept} bytes kept in "${path}.ipull"`
      : "run harness again to retry";
  };
  try {
    await downloader.download(options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (options.signal?.aborted) return failure(`Download of "${source.uri}" stopped: ${next()}`);
    return failure(`${cannot}: ${errorText(error)}: ${next()}`);
  }
  // A cancelled download returns normally.
  if (options.signal?.aborted) return failure(`Download of "${source.uri}" stopped: ${next()}`);
  options.onVerify?.();
  const sizeBytes = source.sizeBytes ?? (totalBytes > 0 ? totalBytes : undefined);
  const problem = await modelFileProblem(path, {
    ...(sizeBytes === undefined ? {} : { sizeBytes }),
    ...(source.sha256 ? { sha256: source.sha256 } : {}),
  }, lib);
  if (problem !== undefined) {
    await Deno.remove(path).catch(() => {});
    return failure(
      `Downloaded model "${path}" is corrupted: ${problem}: it was deleted; run harness ` +
        "again to download it again",
    );
  }
  const info = await Deno.stat(path);
  const index = await readIndex(options.dir);
  index[source.uri] = {
    file: basename(path),
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? 0,
    ...(source.sha256 ? { sha256: source.sha256 } : {}),
  };
  await writeIndex(options.dir, index).catch(() => {}); // unrecorded: checked again next run
  return ok({ path, downloaded: true });
}
