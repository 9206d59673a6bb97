// The file port between a sandbox worker and the host: when a call of a built-in file tool
// carries a FilePort of the host (the editor's, under ACP), the host serves it on a
// MessagePort and the worker's `ctx.files` is a RemoteFiles over the other end. Requests are
// answered by id; a ToolError or a refusal (NotCapable) crosses as its name and message.

import { ToolError } from "../../tools/define_tool.ts";
import type { FilePort, FileStat, FileWrite, ListedEntry } from "../../tools/file_port.ts";

/** A request from the worker. */
export type FileRequest =
  | { id: number; op: "read"; abs: string; path: string; head?: number }
  | { id: number; op: "write"; abs: string; path: string; content: string }
  | { id: number; op: "stat"; abs: string }
  | { id: number; op: "list"; abs: string; path: string };

/** The host's answer. */
export type FileReply =
  | { id: number; ok: true; value: Uint8Array | FileWrite | FileStat | ListedEntry[] | null }
  | { id: number; ok: false; error: { name: string; type?: string; message: string } };

/**
 * Serves a worker's file requests from the host's access until the port closes.
 *
 * @param port The host's end of the call's channel.
 * @param access The host's file access (the editor's).
 */
export function serveFiles(port: MessagePort, access: FilePort): void {
  port.onmessage = async (event: MessageEvent<FileRequest>) => {
    const request = event.data;
    try {
      const value = await answer(request, access);
      port.postMessage({ id: request.id, ok: true, value: value ?? null } satisfies FileReply);
    } catch (error) {
      const failed = error instanceof Error ? error : new Error(String(error));
      const type = (failed as { type?: unknown }).type;
      port.postMessage(
        {
          id: request.id,
          ok: false,
          error: {
            name: failed.name,
            ...(typeof type === "string" ? { type } : {}),
            message: failed.message,
          },
        } satisfies FileReply,
      );
    }
  };
}

function answer(request: FileRequest, access: FilePort) {
  switch (request.op) {
    case "read":
      return access.read(
        request.abs,
        request.path,
        request.head === undefined ? {} : { head: request.head },
      );
    case "write":
      return access.write(request.abs, request.content, request.path);
    case "stat":
      return access.stat(request.abs);
    case "list":
      return access.list(request.abs, request.path);
    default: {
      const never: never = request;
      throw new Error(`unknown file request ${JSON.stringify(never)}`);
    }
  }
}

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

/**
 * A channel whose host end serves `access`: the other end goes to the worker with the call;
 * close it when the call ended.
 *
 * @param access The host's file access.
 * @returns The worker's end, and how to close the host's.
 */
export function openFileChannel(access: FilePort): { port: MessagePort; close(): void } {
  const channel = new MessageChannel();
  serveFiles(channel.port1, access);
  return { port: channel.port2, close: () => channel.port1.close() };
}

/** The worker's `ctx.files` over a port the host serves. */
export class RemoteFiles implements FilePort {
  readonly #port: MessagePort;
  readonly #waiting = new Map<number, (reply: FileReply) => void>();
  #nextId = 1;

  /** @param port The worker's end of the call's channel. */
  constructor(port: MessagePort) {
    this.#port = port;
    port.onmessage = (event: MessageEvent<FileReply>) => {
      this.#waiting.get(event.data.id)?.(event.data);
      this.#waiting.delete(event.data.id);
    };
  }

  async #ask(request: WithoutId<FileRequest>): Promise<unknown> {
    const id = this.#nextId++;
    const reply = await new Promise<FileReply>((settle) => {
      this.#waiting.set(id, settle);
      this.#port.postMessage({ ...request, id } as FileRequest);
    });
    if (reply.ok) return reply.value;
    const { name, type, message } = reply.error;
    if (name === "ToolError" && type !== undefined) {
      throw new ToolError(type as ConstructorParameters<typeof ToolError>[0], message);
    }
    if (name === "NotCapable") throw new Deno.errors.NotCapable(message);
    throw new Error(message);
  }

  async read(abs: string, path: string, options: { head?: number } = {}): Promise<Uint8Array> {
    const head = options.head === undefined ? {} : { head: options.head };
    return await this.#ask({ op: "read", abs, path, ...head }) as Uint8Array;
  }

  async write(abs: string, content: string, path: string): Promise<FileWrite> {
    return await this.#ask({ op: "write", abs, path, content }) as FileWrite;
  }

  async stat(abs: string): Promise<FileStat | undefined> {
    return (await this.#ask({ op: "stat", abs }) as FileStat | null) ?? undefined;
  }

  async list(abs: string, path: string): Promise<ListedEntry[]> {
    return await this.#ask({ op: "list", abs, path }) as ListedEntry[];
  }
}
