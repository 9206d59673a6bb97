// The search tool's side of its port to the host's search processes (search_protocol.ts):
// one request at a time, its output handed on chunk by chunk, and a way to stop the process
// once the tool has read enough. Tools see it as `ctx.search` (src/tools/define_tool.ts).

import type { FilesRequest, GrepRequest, SearchReply, SearchRequest } from "./search_protocol.ts";

/** How one run ended. */
export type SearchRun =
  | {
    /** The absolute folder the printed paths start with (then "/"). */
    root: string;
    /** Workspace-relative paths the process could not see (the sandbox's --deny-read). */
    excluded: string[];
    /** The exit code; null when the run was stopped. */
    code: number | null;
    stderr: string;
  }
  | { unavailable: string };

/** What `onData` returns to end the run early (the process is killed). */
export const STOP = "stop";

/** Runs ripgrep or fd through the host, one request at a time. */
export class SearchClient {
  readonly #port: MessagePort;
  #busy = false;

  /** @param port The call's port to the host's search service. */
  constructor(port: MessagePort) {
    this.#port = port;
  }

  /**
   * Runs one request.
   *
   * @param request What to search or list.
   * @param onData Called with each chunk of output and the folder its paths start with
   *   (then "/"); returning STOP kills the process.
   * @param signal Stops the process when aborted.
   * @returns How the run ended, or why no process could run.
   */
  run(
    request: GrepRequest | FilesRequest,
    onData: (bytes: Uint8Array, root: string) => void | typeof STOP,
    signal?: AbortSignal,
  ): Promise<SearchRun> {
    if (this.#busy) throw new Error("SearchClient.run() called while a run is going on");
    this.#busy = true;
    return new Promise<SearchRun>((settle) => {
      let excluded: string[] = [];
      let root = "";
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        this.#send({ type: "stop" });
      };
      const finish = (run: SearchRun) => {
        signal?.removeEventListener("abort", stop);
        this.#port.onmessage = null;
        this.#busy = false;
        settle(run);
      };
      signal?.addEventListener("abort", stop, { once: true });
      this.#port.onmessage = (event: MessageEvent<SearchReply>) => {
        const reply = event.data;
        switch (reply.type) {
          case "started":
            excluded = reply.excluded;
            root = reply.root;
            return;
          case "data":
            if (!stopped && onData(reply.bytes, root) === STOP) stop();
            return;
          case "done":
            finish({ root, excluded, code: reply.code, stderr: reply.stderr });
            return;
          case "unavailable":
            finish({ unavailable: reply.reason });
            return;
          case "grant":
            return; // answers grant(), never a run
          default: {
            const never: never = reply;
            throw new Error(`unknown search reply ${JSON.stringify(never)}`);
          }
        }
      };
      this.#send(request);
      if (signal?.aborted) stop();
    });
  }

  /**
   * The call's read grant, as the host gave it to the tool's worker.
   *
   * @returns true for everything, else absolute paths (none when the tool may not read).
   */
  grant(): Promise<true | string[]> {
    if (this.#busy) throw new Error("SearchClient.grant() called while a run is going on");
    this.#busy = true;
    return new Promise((settle) => {
      this.#port.onmessage = (event: MessageEvent<SearchReply>) => {
        if (event.data.type !== "grant") return;
        this.#port.onmessage = null;
        this.#busy = false;
        settle(event.data.read);
      };
      this.#send({ type: "grant" });
    });
  }

  #send(request: SearchRequest): void {
    this.#port.postMessage(request);
  }

  /** Closes the port (the host then stops anything still running). */
  close(): void {
    this.#port.close();
  }
}
