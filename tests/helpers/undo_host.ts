// Test support for checkpoints through real conversations: one workspace with the built-in
// tools in their sandbox, a data folder for the shadow repository, and as many sessions
// (conversations with their own checkpoints, as two harness processes in one folder have)
// as a test opens, each scripted. A `git` wrapper can stand in for the real one (to count
// its runs or make them fail as on a full disk).

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { Conversation } from "../../src/agent/conversation.ts";
import { ScriptedProvider, type ScriptedStep } from "../../src/providers/scripted.ts";
import { checkpointedStages, openCheckpoints } from "../../src/app/run_checkpoints.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import type { LoopEvent } from "../../src/agent/loop_events.ts";
import type { TurnCheckpoint } from "../../src/checkpoints/turn_checkpoints.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "./loop_host.ts";

/** One session: its conversation, script, logged events and checkpoints. */
export interface UndoSession {
  conversation: Conversation;
  provider: ScriptedProvider;
  /** Every event the session log got. */
  logged: LoopEvent[];
  /** Sends a message and returns what the display got. */
  send(text: string): Promise<EventLog>;
  /** The records of turns that ended, as logged. */
  ended(): TurnCheckpoint[];
}

/** A workspace with sessions in it. */
export interface UndoHost extends AsyncDisposable {
  workspace: string;
  data: string;
  /** The shadow repository's git folder. */
  gitDir(): string;
  /** Opens a session with its own checkpoints (records: as a resumed session brings). */
  session(steps: ScriptedStep[], options?: { records?: TurnCheckpoint[] }): UndoSession;
  read(path: string): Promise<string | undefined>;
  write(path: string, text: string): Promise<void>;
  /** Closes every session's checkpoints, as harness does at exit (the folders stay). */
  closeSessions(): Promise<void>;
}

/**
 * Opens a workspace with the built-in tools under `grants`.
 *
 * @param grants Permission flags (e.g. `--allow-read=.`).
 * @param options `files` to write first; `path`: the PATH git is found on.
 */
export async function openUndoHost(
  grants: string[],
  options: { files?: Record<string, string>; path?: string } = {},
): Promise<UndoHost> {
  const h = await openLoopHost({ builtins: true, grants, files: options.files ?? {} });
  const parsed = parseGrantFlags(grants, { cwd: h.workspace });
  assert(parsed.ok);
  const data = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_undo_data_" }));
  const opened: { close(): Promise<void> }[] = [];
  const file = (path: string) => join(h.workspace, path);
  let count = 0;
  return {
    workspace: h.workspace,
    data,
    gitDir() {
      const root = join(data, "checkpoints");
      const [folder] = [...Deno.readDirSync(root)].filter((entry) => entry.isDirectory);
      assert(folder, "the shadow repository exists");
      return join(root, folder.name);
    },
    session(steps, more = {}) {
      const checkpoints = openCheckpoints(
        { checkpoints: true, checkpointMaxFileSize: 1024 * 1024 },
        {
          cwd: h.workspace,
          grants: parsed.value.grants,
          dataDir: data,
          session: `session-${++count}`,
          ...(options.path ? { path: options.path } : {}),
        },
        more.records ?? [],
      );
      assert(checkpoints);
      opened.push(checkpoints);
      const logged: LoopEvent[] = [];
      const provider = new ScriptedProvider(steps);
      const conversation = new Conversation({
        provider,
        tools: toolScope(h.host),
        approver: new RecordingApprover(),
        recorder: { id: "s", record: (event) => void logged.push(event), end: () => {} },
        limits: { maxIterations: 6, maxToolCalls: 5 },
        window: {},
        stages: checkpointedStages(checkpoints),
      }, { messages: [{ kind: "system", content: "sys" }] });
      return {
        conversation,
        provider,
        logged,
        async send(text) {
          const display = new EventLog();
          await conversation.send(text, display.sink, new AbortController().signal);
          return display;
        },
        ended: () =>
          logged.flatMap((event) =>
            event.type === "checkpoint" && !(event.checkpoint as { open?: boolean }).open
              ? [event.checkpoint]
              : []
          ),
      };
    },
    read: (path) => Deno.readTextFile(file(path)).catch(() => undefined),
    write: async (path, text) => {
      await Deno.mkdir(join(file(path), ".."), { recursive: true });
      await Deno.writeTextFile(file(path), text);
    },
    async closeSessions() {
      for (const checkpoints of opened.splice(0)) await checkpoints.close();
    },
    async [Symbol.asyncDispose]() {
      for (const checkpoints of opened.splice(0)) await checkpoints.close();
      await h[Symbol.asyncDispose]();
      await Deno.remove(data, { recursive: true });
    },
  };
}

/**
 * A `git` that runs the real one, logging each run's arguments to `log` and failing every
 * run while `fail` exists ("No space left on device", as on a full disk).
 *
 * @param dir Where to put the wrapper.
 * @param options `slowScan`: a scan of the whole folder takes 1.5 s more (a very large tree).
 * @returns The PATH to use and the two files.
 */
export function gitWrapper(
  dir: string,
  options: { slowScan?: boolean } = {},
): { path: string; log: string; fail: string } {
  const real = new TextDecoder().decode(
    new Deno.Command("sh", { args: ["-c", "command -v git"], stdout: "piped" }).outputSync()
      .stdout,
  ).trim();
  const bin = join(dir, "bin");
  Deno.mkdirSync(bin, { recursive: true });
  const log = join(dir, "git.log");
  const fail = join(dir, "git.fail");
  Deno.writeTextFileSync(
    join(bin, "git"),
    `#!/bin/sh\necho "$*" >> '${log}'\n` +
      `if [ -e '${fail}' ]; then echo "fatal: write error: No space left on device" >&2; exit 128; fi\n` +
      (options.slowScan ? `case "$*" in *ls-files*--others*) sleep 1.5;; esac\n` : "") +
      `exec '${real}' "$@"\n`,
  );
  Deno.chmodSync(join(bin, "git"), 0o755);
  return { path: `${bin}:${Deno.env.get("PATH") ?? ""}`, log, fail };
}

/** The turns' written files as a tool call: `write_file` with the path and text. */
export function writeCall(path: string, content: string) {
  return { name: "write_file", args: { path, content } };
}
