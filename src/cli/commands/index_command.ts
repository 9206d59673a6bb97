// `harness index`: builds or refreshes the code graph of the current folder ahead of time,
// with a progress line on stderr, then prints counts and time. It reads files under the same
// read grant as the tools, so it needs --allow-read for the folder.

import { dataDir } from "../../config/folders.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { Grants } from "../../sandbox/grants/grants.ts";
import type { CommandIO } from "../command_io.ts";

const encoder = new TextEncoder();

function progressLine(done: number, total: number, startedMs: number): string {
  const width = 24;
  const fraction = total === 0 ? 1 : done / total;
  const filled = Math.round(fraction * width);
  const seconds = (performance.now() - startedMs) / 1000;
  const rate = seconds > 0 ? Math.round(done / seconds) : 0;
  return `\rIndexing [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} files` +
    ` (${rate} files/s)\x1b[K`;
}

/**
 * Indexes the workspace and prints a summary; returns the exit code.
 *
 * @param grants The permission flags (the read grant must cover `cwd`).
 * @param cwd The workspace.
 * @param io Error printing.
 */
export async function runIndexCommand(grants: Grants, cwd: string, io: CommandIO): Promise<number> {
  const [{ GraphStore, graphStorePath }, { indexWorkspace }] = await Promise.all([
    import("../../code_index/graph_store.ts"),
    import("../../code_index/index_workspace.ts"),
  ]);
  const store = GraphStore.open(await graphStorePath(dataDir(), cwd));
  const started = performance.now();
  const terminal = Deno.stderr.isTerminal();
  let lastDraw = 0;
  try {
    const summary = await indexWorkspace({
      workspace: cwd,
      grants,
      store,
      onProgress: (done, total) => {
        if (!terminal || performance.now() - lastDraw < 50) return;
        lastDraw = performance.now();
        Deno.stderr.writeSync(encoder.encode(progressLine(done, total, started)));
      },
    });
    if (terminal) Deno.stderr.writeSync(encoder.encode("\r\x1b[K"));
    const counts = store.counts();
    const seconds = (summary.elapsedMs / 1000).toFixed(1);
    console.log(
      `Indexed ${summary.files} files in ${seconds} s (${summary.parsed} parsed, ` +
        `${summary.removed} removed, ${summary.skipped} skipped): ` +
        `${counts.definitions} definitions, ${counts.references} references`,
    );
    for (const failure of summary.failures) io.printError(`Could not parse ${failure}`);
    return EXIT.ok;
  } catch (error) {
    if (terminal) Deno.stderr.writeSync(encoder.encode("\r\x1b[K"));
    io.printError(error instanceof Error ? error.message : String(error));
    return error instanceof Error && error.message.includes("--allow-read")
      ? EXIT.usage
      : EXIT.runtime;
  } finally {
    store.close();
  }
}
