// Where a GGUF model comes from when harness downloads it: the `default_model` setting (the
// model harness offers to run itself when no server answers) and `--model-file` given as an
// `hf:` reference or an http(s) URL. Free of imports: config.ts checks the setting with it
// on the start-up path.

/** A model to download: its URI, and what is known about it before the download. */
export interface ModelSource {
  /** `hf:user/repo/file.gguf#revision`, `hf:user/repo:quant`, or an http(s) URL. */
  uri: string;
  /** For the user ("Qwen3 4B Instruct 2507, Q4_K_M"); the URI when not given. */
  name?: string;
  /** The file's size in bytes, shown before downloading and checked after. */
  sizeBytes?: number;
  /** The file's SHA-256 (64 hex digits), checked once after the download. */
  sha256?: string;
}

/**
 * The model harness offers to run in-process when no server answers: Qwen3 4B Instruct 2507
 * at Q4_K_M, which calls tools well and runs on a CPU. Pinned to one revision of the
 * repository, so its size and SHA-256 stay true.
 */
export const DEFAULT_MODEL: ModelSource = {
  uri: "hf:bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF/Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf" +
    "#ae44f08e1392f39c0e474af10c3ff8355c8b6688",
  name: "Qwen3 4B Instruct 2507 (Q4_K_M)",
  sizeBytes: 2_497_280_736,
  sha256: "2fde00ce69dd4899c70d020845e2638353015bba0fdf161b3eb965f2bca4464e",
};

/**
 * Whether `text` names a model to download rather than a local file.
 *
 * @example
 * ```ts
 * import { isModelUri } from "./model_source.ts";
 * if (!isModelUri("hf:Qwen/Qwen3-4B-GGUF:Q4_K_M")) throw new Error();
 * if (!isModelUri("https://example.com/m.gguf")) throw new Error();
 * if (isModelUri("models/m.gguf")) throw new Error();
 * ```
 */
export function isModelUri(text: string): boolean {
  return /^(hf:|huggingface:|https?:\/\/)/i.test(text);
}

/**
 * Checks a `default_model` value: a URI string, or `{ "uri", "name", "sha256", "size_bytes" }`.
 *
 * @returns The source, or why the value is wrong.
 * @example
 * ```ts
 * import { parseModelSource } from "./model_source.ts";
 * const r = parseModelSource({ uri: "https://h/m.gguf", size_bytes: 10 });
 * if (typeof r === "string" || r.sizeBytes !== 10) throw new Error();
 * if (typeof parseModelSource("m.gguf") !== "string") throw new Error();
 * ```
 */
export function parseModelSource(value: unknown): ModelSource | string {
  const expected = 'expected an "hf:" reference or an http(s) URL of a .gguf file, or ' +
    '{ "uri": ..., "name": ..., "sha256": ..., "size_bytes": ... }';
  if (typeof value === "string") return isModelUri(value) ? { uri: value } : expected;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return expected;
  const { uri, name, sha256, size_bytes: size, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) return `unknown key "${unknown}": ${expected}`;
  if (typeof uri !== "string" || !isModelUri(uri)) return `"uri": ${expected}`;
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    return `"name": expected a non-empty string`;
  }
  if (sha256 !== undefined && (typeof sha256 !== "string" || !/^[0-9a-f]{64}$/i.test(sha256))) {
    return `"sha256": expected 64 hex digits`;
  }
  if (size !== undefined && !(typeof size === "number" && Number.isInteger(size) && size > 0)) {
    return `"size_bytes": expected a positive whole number`;
  }
  return {
    uri,
    ...(name === undefined ? {} : { name: name as string }),
    ...(sha256 === undefined ? {} : { sha256: (sha256 as string).toLowerCase() }),
    ...(size === undefined ? {} : { sizeBytes: size as number }),
  };
}
