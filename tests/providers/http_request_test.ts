// httpRequest (its own HTTP/1.1 connection for plain http) against fetchRequest (fetch), on
// real loopback servers: the same answers (status, statusText, content type, body bytes, a
// stream as it is sent) from the same requests as the server sees them; redirects, bad ports,
// refused connections and a proxy in the environment go through fetch as fetch would.

import {
  deepStrictEqual as assertEquals,
  ok as assert,
  rejects as assertRejects,
} from "node:assert/strict";
import {
  fetchRequest,
  httpRequest,
  type HttpRequestInit,
  type HttpResponse,
} from "../../src/providers/http_request.ts";
import { send, startRawHttpServer } from "../helpers/raw_http_server.ts";
import { concatBytes } from "../../src/platform/concat_bytes.ts";

const PATHS = { httpRequest, fetchRequest };
const FIELDS = ["accept", "authorization", "content-length", "content-type", "host", "user-agent"];

/** A request as a Deno.serve server saw it. */
interface Seen {
  method: string;
  target: string;
  fields: Record<string, string | null>;
  body: string;
}

/** A Deno.serve server that records each request and answers with `answer`. */
function startServer(answer: (request: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    seen.push({
      method: request.method,
      target: url.pathname + url.search,
      fields: Object.fromEntries(FIELDS.map((name) => [name, request.headers.get(name)])),
      body: await request.text(),
    });
    return await answer(request);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** What a caller reads of an answer. */
async function outcome(response: HttpResponse) {
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    contentType: response.headers.get("Content-Type"),
    body: concatBytes(await Array.fromAsync(response.body)),
  };
}

/** A body sent in parts, each written on its own. */
function parts(...pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.shift();
      if (piece === undefined) controller.close();
      else controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
    },
  });
}

const JSON_TYPE = { "content-type": "application/json" };
const utf8 = new TextEncoder().encode("日本語 and émoji 🦕 done");
const MIB = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 31) % 251);

const CASES: { name: string; target: string; init: HttpRequestInit; answer: () => Response }[] = [
  {
    name: "JSON",
    target: "/v1/models?limit=2&q=a%20b",
    init: { headers: { authorization: "Bearer sk-test", accept: "application/json" } },
    answer: () => Response.json({ data: [{ id: "qwen3" }] }),
  },
  {
    name: "a 404 with a body",
    target: "/v1/chat/completions",
    init: { method: "POST", headers: JSON_TYPE, body: '{"model":"none"}' },
    answer: () =>
      new Response('{"error":{"message":"model not found"}}', { status: 404, headers: JSON_TYPE }),
  },
  {
    name: "a 204",
    target: "/api/ping",
    init: { method: "DELETE" },
    answer: () => new Response(null, { status: 204 }),
  },
  {
    name: "a 1 MiB body",
    target: "/blob",
    init: {},
    answer: () => new Response(MIB, { headers: { "content-type": "application/octet-stream" } }),
  },
  {
    name: "UTF-8 split across writes",
    target: "/text",
    init: {},
    answer: () =>
      new Response(
        parts(utf8.subarray(0, 1), utf8.subarray(1, 4), utf8.subarray(4, 22), utf8.subarray(22)),
        {
          headers: { "content-type": "text/plain; charset=utf-8" },
        },
      ),
  },
  {
    name: "a POST with a JSON body",
    target: "/v1/chat/completions",
    init: {
      method: "POST",
      headers: { ...JSON_TYPE, authorization: "Bearer k", "user-agent": "harness/0.1" },
      body: JSON.stringify({ messages: [{ role: "user", content: "héllo ✓" }] }),
    },
    answer: () => Response.json({ choices: [] }, { status: 201 }),
  },
  {
    name: "a POST without a content type",
    target: "/api/generate",
    init: { method: "POST", body: "plain text" },
    answer: () => new Response("ok"),
  },
  {
    name: "a POST with an empty body",
    target: "/slots/0?action=erase",
    init: { method: "POST", headers: JSON_TYPE, body: "" },
    answer: () => Response.json({ id_slot: 0 }),
  },
  {
    name: "a PUT without a body",
    target: "/api/x",
    init: { method: "PUT", headers: JSON_TYPE },
    answer: () => new Response("put"),
  },
  {
    name: "a HEAD",
    target: "/v1/models",
    init: { method: "HEAD" },
    answer: () => Response.json({ data: [] }),
  },
];

for (const { name, target, init, answer } of CASES) {
  Deno.test(`httpRequest() answers and asks as fetch does: ${name}`, async () => {
    await using server = startServer(answer);
    const own = await outcome(await httpRequest(server.url + target, init));
    const reference = await outcome(await fetchRequest(server.url + target, init));
    assertEquals(own, reference);
    assertEquals(server.seen.length, 2);
    assertEquals(server.seen[0], server.seen[1]);
    assertEquals(server.seen[0]!.target, target);
  });
}

Deno.test("httpRequest() hands on each server-sent event as it is sent, as fetch does", async () => {
  let firstRead: () => void = () => {};
  let lastSentEarly = false;
  await using server = startServer(() => {
    const gate = new Promise<void>((open) => firstRead = open);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const encoder = new TextEncoder();
        controller.enqueue(encoder.encode('data: {"n":1}\n\n'));
        // The rest waits for the client to have the first event (or 5 s, a failure).
        const late = new Promise<boolean>((settle) => timer = setTimeout(() => settle(true), 5000));
        lastSentEarly = await Promise.race([gate.then(() => false), late]);
        clearTimeout(timer);
        controller.enqueue(encoder.encode('data: {"n":2}\n\n'));
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const bodies: Record<string, string> = {};
  for (const [name, request] of Object.entries(PATHS)) {
    lastSentEarly = false;
    const response = await request(`${server.url}/v1/chat/completions`, { method: "POST" });
    assertEquals(response.headers.get("content-type"), "text/event-stream");
    let text = "";
    const decoder = new TextDecoder();
    for await (const piece of response.body) {
      if (text === "") {
        assertEquals(decoder.decode(piece, { stream: true }), 'data: {"n":1}\n\n', name);
        text = 'data: {"n":1}\n\n';
        firstRead();
      } else text += decoder.decode(piece, { stream: true });
    }
    assert(!lastSentEarly, `${name}: the first event came only after the server's 5 s wait`);
    bodies[name] = text;
  }
  assertEquals(bodies.httpRequest, 'data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n');
  assertEquals(bodies.httpRequest, bodies.fetchRequest);
});

Deno.test("httpRequest() gives fetch's statusText for a status line without a reason or its own", async () => {
  const lines = ["HTTP/1.1 500", "HTTP/1.1 503 Loading model", "HTTP/1.1 404 Not Found"];
  for (const line of lines) {
    await using raw = startRawHttpServer(async ({ conn }) => {
      await send(conn, `${line}\r\nconnection: close\r\ncontent-length: 2\r\n\r\nno`);
    });
    const own = await outcome(await httpRequest(`${raw.url}/`));
    const reference = await outcome(await fetchRequest(`${raw.url}/`));
    assertEquals(own, reference, line);
  }
});

Deno.test("httpRequest() fails with fetch's words when the server cuts a body short", async () => {
  await using raw = startRawHttpServer(async ({ conn }) => {
    await send(
      conn,
      "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 100\r\n\r\ntoo short",
    );
  });
  const messages: string[] = [];
  for (const request of Object.values(PATHS)) {
    const response = await request(`${raw.url}/`);
    await assertRejects(response.text(), (error: Error) => {
      messages.push(error.message);
      return true;
    });
  }
  assertEquals(messages, Array(2).fill("error reading a body from connection"));
});

Deno.test("httpRequest() follows a 302 through fetch to the final answer", async () => {
  const close = "connection: close\r\ncontent-length: 5\r\n\r\n";
  await using raw = startRawHttpServer(async ({ conn, target }) => {
    const moved = target === "/start";
    const head = moved ? "HTTP/1.1 302 Found\r\nlocation: /final" : "HTTP/1.1 200 OK";
    await send(conn, `${head}\r\n${close}${moved ? "moved" : "final"}`);
  });
  const response = await httpRequest(`${raw.url}/start`, { headers: { accept: "text/plain" } });
  assertEquals([response.status, response.ok, await response.text()], [200, true, "final"]);
  // Its own connection got the 302; fetch asked again and followed it.
  const targets = raw.requests.map((request) => request.slice(0, request.indexOf("\r\n")));
  assertEquals(targets, ["GET /start HTTP/1.1", "GET /start HTTP/1.1", "GET /final HTTP/1.1"]);
  assert(/\r\nconnection: close\r\n/i.test(raw.requests[0]!));
  assert(!/\r\nconnection: close\r\n/i.test(raw.requests[1]!), "the second is fetch's");
});

Deno.test("httpRequest() fails on a port fetch refuses exactly as fetch does", async () => {
  const failures: string[] = [];
  for (const request of Object.values(PATHS)) {
    await assertRejects(request("http://127.0.0.1:9/v1/models"), (error: Error) => {
      failures.push(`${error.name}: ${error.message} (${String(error.cause)})`);
      return true;
    });
  }
  assertEquals(failures[0], failures[1]);
});

Deno.test("httpRequest() reports a refused connection in words that say so", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}/v1/models`;
  listener.close();
  for (const [name, request] of Object.entries(PATHS)) {
    await assertRejects(request(url), (error: Error) => {
      const text = `${error.message} ${String(error.cause)}`;
      assert(/refused/i.test(text), `${name}: ${text}`);
      return true;
    });
  }
});

Deno.test("httpRequest() goes through a proxy named in the environment as fetch does", async () => {
  // fetch reads the proxy variables once, when a process first fetches: a fresh process with
  // the variable set is what a user behind a proxy runs.
  await using target = startServer(() => new Response("direct"));
  const proxied: string[] = [];
  await using proxy = startServer((request) => {
    proxied.push(request.url);
    return new Response("through the proxy", { status: 203 });
  });
  const module = new URL("../../src/providers/http_request.ts", import.meta.url).href;
  const url = `${target.url}/v1/models?x=1`;
  const code = `const { httpRequest } = await import(${JSON.stringify(module)});
const response = await httpRequest(${JSON.stringify(url)});
console.log(response.status, await response.text());`;
  const inherited: Record<string, string> = {};
  for (const name of ["HOME", "PATH", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) inherited[name] = value;
  }
  for (const variable of ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]) {
    proxied.length = 0;
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", code],
      env: { ...inherited, [variable]: proxy.url },
      clearEnv: true,
    }).output();
    const errors = new TextDecoder().decode(child.stderr);
    assertEquals(new TextDecoder().decode(child.stdout), "203 through the proxy\n", errors);
    assertEquals(proxied, [url], variable);
  }
  assertEquals(target.seen, []);
});
