// When no model server answers, harness offers to run a model itself: the `default_model`
// (DEFAULT_MODEL unless the user's config names another) in-process through node-llama-cpp.
// A verified copy in the cache folder is used at once. Otherwise the REPL asks before
// downloading (showing the size) and `-p` downloads only with `--yes`; the download shows
// its progress and resumes after an interrupt (src/providers/model_download.ts).

import type { Settings } from "../config/settings.ts";
import { modelCacheDir } from "../config/folders.ts";
import { type AgentError, err, formatAgentError, ok, type Result } from "../errors.ts";
import { DEFAULT_MODEL, type ModelSource } from "../providers/model_source.ts";
import { fetchModel, findCachedModel, probeModel } from "../providers/model_download.ts";
import {
  importModelDownloads,
  installedVersion,
  NODE_LLAMA_CPP_VERSION,
} from "../providers/llama_cpp/node_llama_cpp.ts";
import { downloadProgress, type ProgressSink } from "../ui/download_progress.ts";
import { humanSize } from "../platform/human_size.ts";

/** How the offer talks to the user. */
export interface EmbeddedIO extends ProgressSink {
  /** Prints the "no server" error as harness prints errors. */
  printError(message: string): void;
  /** Asks a question; null at end of input. */
  readLine(prompt: string): Promise<string | null>;
}

/** What was settled: the model file to load, and a line for the user. */
export interface ModelHere {
  modelFile: string;
  note: string;
}

/**
 * Settles the model to run in-process after discovery found no server.
 *
 * @param settings The settings (`defaultModel` and the cache folder's environment).
 * @param noServer The discovery error, which says how to start each server.
 * @param options -p or REPL, --yes, the I/O and the environment.
 * @returns The downloaded (or cached) file, or the message to exit with: in -p without
 *   --yes it is the discovery error plus how to download; when declined, what else to do.
 */
export async function runModelHere(
  settings: Settings,
  noServer: AgentError,
  options: {
    printMode: boolean;
    yes: boolean;
    io: EmbeddedIO;
    env?: (name: string) => string | undefined;
  },
): Promise<Result<ModelHere, { message: string }>> {
  const { io } = options;
  const source: ModelSource = settings.defaultModel ?? DEFAULT_MODEL;
  const name = source.name ?? source.uri;
  const dir = modelCacheDir(options.env);
  const cached = await findCachedModel(source, dir);
  if (cached !== undefined) {
    return ok({ modelFile: cached, note: `No model server answered: running ${name} here` });
  }
  const noServerText = formatAgentError(noServer);
  if (await installedVersion() !== NODE_LLAMA_CPP_VERSION) {
    return err({
      message: Deno.build.standalone
        ? `${noServerText}\nThis compiled binary cannot run a model itself: start a model server`
        : `${noServerText}\nOr run "deno task install-llama" once, and harness offers to ` +
          "download a model and run it itself",
    });
  }
  const sized = (bytes: number | undefined) => bytes === undefined ? "" : ` (${humanSize(bytes)})`;
  if (options.printMode && !options.yes) {
    return err({
      message: `${noServerText}\nOr pass --yes to download the default model ${name}${
        sized(source.sizeBytes)
      } into "${dir}" and run it here`,
    });
  }
  let sizeBytes = source.sizeBytes;
  if (!options.printMode) {
    io.printError(noServerText);
    if (sizeBytes === undefined) {
      // A model the user's config names without its size: ask its server.
      const lib = await importModelDownloads();
      if (!lib.ok) return err({ message: `Cannot download model "${source.uri}": ${lib.reason}` });
      const probe = await probeModel(source, lib.module);
      if (!probe.ok) return err({ message: formatAgentError(probe.error) });
      sizeBytes = probe.value.totalBytes;
    }
    const answer = await io.readLine(
      `Download ${name}${sized(sizeBytes)} into ${dir} and run it here? [y/N] `,
    );
    if (answer === null || !["y", "yes"].includes(answer.trim().toLowerCase())) {
      return err({
        message: "No model to run: start a model server (see above), or pass --base-url or " +
          "--model-file",
      });
    }
  }
  const fetched = await fetchModel(source, { dir, ...downloadProgress(name, io) });
  if (!fetched.ok) return err({ message: formatAgentError(fetched.error) });
  return ok({
    modelFile: fetched.value.path,
    note: `No model server answered: running ${name} here`,
  });
}
