// The loopback model server of the release smoke test (scripts/smoke_release.ts): a real
// OpenAI-compatible chat-completions endpoint on 127.0.0.1 that streams SSE. It is stateless:
// a user prompt `call NAME {JSON}` gets a tool call of NAME, a tool result gets a text answer
// quoting it, any other prompt gets "pong". It imports nothing from src/ or tests/.

/** The model name the server lists and answers as. */
export const SMOKE_MODEL = "smoke-model";

/** The answer to a prompt that asks for no tool call. */
export const PONG = "pong";

/** A running smoke model server. */
export interface SmokeModelServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`, for `--base-url`. */
  readonly baseUrl: string;
  /** Chat requests answered so far. */
  readonly requests: number;
  /** Stops the server. */
  close(): Promise<void>;
}

interface WireMessage {
  role?: string;
  content?: unknown;
}

interface WireRequest {
  model?: string;
  messages?: WireMessage[];
  tools?: { function?: { name?: string } }[];
}

/** What the model does next: stream text, or call one tool. */
export type SmokeReply =
  | { kind: "text"; text: string }
  | { kind: "call"; name: string; argumentsJson: string };

/** The text of a message's `content` (a string, or an array of text parts). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (typeof part === "object" && part !== null && "text" in part ? part.text : ""))
    .filter((text): text is string => typeof text === "string")
    .join("");
}

/**
 * Decides the reply to one chat request from its last message alone.
 *
 * @param request The parsed request body.
 * @returns A tool call for `call NAME {JSON}` when the request offers NAME, a text answer
 *   naming the problem when it does not, the tool's result after a tool message, else "pong".
 *
 * @example
 * ```ts
 * import { smokeReply } from "./smoke_model_server.ts";
 * const offered = { messages: [{ role: "user", content: 'call ls {"path": "."}' }],
 *   tools: [{ function: { name: "ls" } }] };
 * const reply = smokeReply(offered);
 * if (reply.kind !== "call" || reply.name !== "ls") throw new Error(JSON.stringify(reply));
 * if (smokeReply({ messages: [{ role: "tool", content: "x" }] }).kind !== "text") throw new Error();
 * ```
 */
export function smokeReply(request: WireRequest): SmokeReply {
  const last = request.messages?.at(-1);
  const text = contentText(last?.content);
  if (last?.role === "tool") return { kind: "text", text: `Tool result: ${text}` };
  const call = /^call ([A-Za-z0-9_-]+) (\{.*\})\s*$/s.exec(text.trim());
  if (call === null) return { kind: "text", text: PONG };
  const [, name = "", argumentsJson = "{}"] = call;
  const offered = (request.tools ?? []).map((tool) => tool.function?.name);
  if (!offered.includes(name)) {
    return {
      kind: "text",
      text: `Tool "${name}" was not offered (offered: ${offered.join(", ")})`,
    };
  }
  return { kind: "call", name, argumentsJson };
}

function sseFrames(reply: SmokeReply, model: string): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${
      JSON.stringify({
        id: "chatcmpl-smoke",
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    }\n\n`;
  const frames = [chunk({ role: "assistant", content: "" })];
  if (reply.kind === "text") {
    frames.push(chunk({ content: reply.text }), chunk({}, "stop"));
  } else {
    const call = { index: 0, id: "call_smoke_1", type: "function" };
    frames.push(
      chunk({ tool_calls: [{ ...call, function: { name: reply.name, arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: reply.argumentsJson } }] }),
      chunk({}, "tool_calls"),
    );
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * Starts the smoke model server on a free loopback port.
 *
 * @returns The running server; close it when done.
 *
 * @example
 * ```ts
 * import { startSmokeModelServer } from "./smoke_model_server.ts";
 * await using server = startSmokeModelServer();
 * const res = await fetch(`${server.baseUrl}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
 * });
 * const body = await res.text();
 * if (!body.includes('"content":"pong"') || !body.endsWith("data: [DONE]\n\n")) throw new Error(body);
 * ```
 */
export function startSmokeModelServer(): SmokeModelServer {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/v1/models") {
      return json(200, {
        object: "list",
        data: [{ id: SMOKE_MODEL, object: "model", created: 0, owned_by: "smoke" }],
      });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return json(404, { error: { message: `smoke server: no route ${req.method} ${path}` } });
    }
    let body: WireRequest;
    try {
      body = await req.json();
    } catch {
      return json(400, { error: { message: "smoke server: the body is not JSON" } });
    }
    requests++;
    const frames = sseFrames(smokeReply(body), body.model ?? SMOKE_MODEL);
    return new Response(frames.join(""), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });
  const close = () => server.shutdown();
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    get requests() {
      return requests;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
