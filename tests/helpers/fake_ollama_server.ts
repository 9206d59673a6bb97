// A scripted Ollama server for provider tests: Deno.serve on 127.0.0.1, port 0, speaking
// /api/chat NDJSON, /api/show and /api/tags. Script replies with a builder
// (`ollamaReply().text("Hi").toolCall("ls", {}).done()`); every request is recorded.

/** One scripted step of a /api/chat reply. */
type Step =
  | { kind: "line"; value: Record<string, unknown> }
  | { kind: "raw"; text: string }
  | { kind: "drop" }
  | { kind: "hang" }
  | { kind: "forever"; text: string };

/** Builds one /api/chat reply. */
export class OllamaReply {
  readonly steps: Step[] = [];
  http?: { status: number; error: string };

  #message(message: Record<string, unknown>): this {
    this.steps.push({
      kind: "line",
      value: { model: "m", message: { role: "assistant", content: "", ...message }, done: false },
    });
    return this;
  }

  /** Content chunks, one NDJSON line each. */
  text(...chunks: string[]): this {
    for (const content of chunks) this.#message({ content });
    return this;
  }

  /** Thinking chunks (`message.thinking`). */
  thinking(...chunks: string[]): this {
    for (const thinking of chunks) this.#message({ thinking });
    return this;
  }

  /** A tool call with arguments as an object, and no id unless given. */
  toolCall(name: string, args: unknown, id?: string): this {
    return this.#message({
      tool_calls: [{ ...(id ? { id } : {}), function: { name, arguments: args } }],
    });
  }

  /** The final line: done_reason and token counts. */
  done(
    reason = "stop",
    usage: { prompt?: number; completion?: number; cached?: number } = {},
  ): this {
    this.steps.push({
      kind: "line",
      value: {
        model: "m",
        message: { role: "assistant", content: "" },
        done: true,
        done_reason: reason,
        ...(usage.prompt !== undefined ? { prompt_eval_count: usage.prompt } : {}),
        ...(usage.completion !== undefined ? { eval_count: usage.completion } : {}),
        ...(usage.cached !== undefined ? { prompt_eval_cached_count: usage.cached } : {}),
      },
    });
    return this;
  }

  /** An `{"error": ...}` line in the middle of a 200 stream. */
  errorLine(error: string): this {
    this.steps.push({ kind: "line", value: { error } });
    return this;
  }

  /** A line that is not JSON. */
  raw(text: string): this {
    this.steps.push({ kind: "raw", text });
    return this;
  }

  /** Answer with an HTTP error and `{"error": ...}` instead of a stream. */
  httpError(status: number, error = "server error"): this {
    this.http = { status, error };
    return this;
  }

  /** Send the steps so far, then nothing, keeping the stream open until the client leaves. */
  hang(): this {
    this.steps.push({ kind: "hang" });
    return this;
  }

  /** After the steps so far, send `text` as it is (no newline added) until the client leaves. */
  forever(text: string): this {
    this.steps.push({ kind: "forever", text });
    return this;
  }

  /** Wait before the response headers (a model still loading or reading the prompt). */
  delay(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  delayMs = 0;

  /** Break the connection after the steps so far. */
  dropConnection(): this {
    this.steps.push({ kind: "drop" });
    return this;
  }
}

/** Starts a reply builder. */
export function ollamaReply(): OllamaReply {
  return new OllamaReply();
}

/** A model the fake server knows. */
export interface FakeModel {
  name: string;
  /** When set, /api/ps lists the model as loaded with this window. */
  loadedContextLength?: number;
  architecture?: string;
  contextLength?: number;
  capabilities?: string[];
  /** Sent as /api/show's `template`. */
  template?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

export interface FakeOllama extends AsyncDisposable {
  /** Root URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  requests: RecordedRequest[];
  /** Conversation problems seen in /api/chat requests (a tool result answering no call). */
  problems: string[];
  /** Queues replies for /api/chat, used in order. */
  script(...replies: OllamaReply[]): void;
  close(): Promise<void>;
}

function checkPairing(body: Record<string, unknown> | undefined, problems: string[]): void {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const calls: { id?: string; name: string }[] = [];
  for (const message of messages as Record<string, unknown>[]) {
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as { id?: string; function: { name: string } }[]) {
        calls.push({ ...(call.id ? { id: call.id } : {}), name: call.function.name });
      }
    }
    if (message.role === "tool") {
      const index = calls.findIndex((c) =>
        message.tool_call_id ? c.id === message.tool_call_id : c.name === message.tool_name
      );
      if (index < 0) problems.push(`tool result ${JSON.stringify(message)} answers no call`);
      else calls.splice(index, 1);
    }
  }
}

/**
 * Starts the fake server.
 *
 * @example
 * ```ts
 * import { ollamaReply, startFakeOllama } from "./fake_ollama_server.ts";
 * await using server = startFakeOllama({ models: [{ name: "qwen3" }] });
 * server.script(ollamaReply().text("Hi").done());
 * ```
 */
export function startFakeOllama(options: { models?: FakeModel[] } = {}): FakeOllama {
  const models = options.models ??
    [{ name: "qwen3", contextLength: 40960, capabilities: ["completion", "tools"] }];
  const queue: OllamaReply[] = [];
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const closing = new AbortController();
  const json = (value: unknown, status = 200) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json" },
    });

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const text = req.method === "POST" ? await req.text() : "";
    let body: Record<string, unknown> | undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return json({ error: "invalid JSON body" }, 400);
    }
    requests.push({ method: req.method, path, body });
    if (path === "/api/tags") {
      return json({ models: models.map((m) => ({ name: m.name, model: m.name, size: 1 })) });
    }
    if (path === "/api/ps") {
      return json({
        models: models.filter((m) => m.loadedContextLength).map((m) => ({
          name: m.name,
          model: m.name,
          size: 3_600_000_000,
          digest: "e55aed6fe643",
          details: { family: m.architecture ?? "qwen3", quantization_level: "Q4_K_M" },
          expires_at: "2026-11-25T03:30:00Z",
          size_vram: 3_600_000_000,
          context_length: m.loadedContextLength,
        })),
      });
    }
    if (path === "/api/show") {
      const model = models.find((m) => m.name === (body?.model ?? body?.name));
      if (!model) return json({ error: `model '${body?.model}' not found` }, 404);
      const arch = model.architecture ?? "qwen3";
      return json({
        details: { family: arch },
        model_info: {
          "general.architecture": arch,
          ...(model.contextLength ? { [`${arch}.context_length`]: model.contextLength } : {}),
        },
        ...(model.capabilities ? { capabilities: model.capabilities } : {}),
        ...(model.template ? { template: model.template } : {}),
      });
    }
    if (path !== "/api/chat") return json({ error: "not found" }, 404);
    checkPairing(body, problems);
    const reply = queue.shift();
    if (!reply) return json({ error: "no scripted reply left" }, 500);
    if (reply.delayMs > 0) await abortableSleep(reply.delayMs, closing.signal);
    if (reply.http) return json({ error: reply.http.error }, reply.http.status);
    const encoder = new TextEncoder();
    const left = new AbortController();
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const step of reply.steps) {
          if (step.kind === "drop") {
            controller.error(new Error("dropped"));
            return;
          }
          if (step.kind === "forever") {
            const chunk = encoder.encode(step.text);
            while (!left.signal.aborted && !closing.signal.aborted) {
              if ((controller.desiredSize ?? 1) > 0) controller.enqueue(chunk);
              else await new Promise((resolve) => setTimeout(resolve, 1));
            }
            return;
          }
          if (step.kind === "hang") {
            await abortableSleep(Infinity, AbortSignal.any([closing.signal, left.signal]));
            if (!left.signal.aborted) controller.close();
            return;
          }
          const line = step.kind === "raw" ? step.text : JSON.stringify(step.value);
          controller.enqueue(encoder.encode(`${line}\n`));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        controller.close();
      },
      cancel() {
        left.abort();
      },
    });
    return new Response(stream, { headers: { "content-type": "application/x-ndjson" } });
  });

  const address = server.addr as Deno.NetAddr;
  const close = async () => {
    closing.abort();
    await server.shutdown();
  };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    problems,
    script: (...replies) => queue.push(...replies),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = ms === Infinity ? undefined : setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
