// Tests of fetching a model into the cache (src/providers/model_download.ts) through
// node-llama-cpp's real downloader against a loopback server serving a scripted GGUF:
// verified and recorded once, never fetched twice, resumed after an interrupt, corrupted
// files deleted, 404 and dead hosts reported at once, `hf:` references resolved.
// Ignored (with the reason) until `deno task install-llama` ran.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { fetchModel, findCachedModel, sha256File } from "../../src/providers/model_download.ts";
import {
  installedVersion,
  NODE_LLAMA_CPP_VERSION,
} from "../../src/providers/llama_cpp/node_llama_cpp.ts";
import { makeScriptedGguf } from "../fixtures/make_scripted_gguf.ts";
import { chunkSaved, startModelFileServer } from "../helpers/model_file_server.ts";

const installed = await installedVersion() === NODE_LLAMA_CPP_VERSION;
const REASON = "node-llama-cpp is not installed (run `deno task install-llama`)";

function downloadTest(name: string, fn: (dir: string) => Promise<void>): void {
  Deno.test({
    name: installed ? name : `${name} [ignored: ${REASON}]`,
    ignore: !installed,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "harness_models_" });
      try {
        await fn(`${dir}/models`);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

const GGUF = makeScriptedGguf({ onUser: { text: "Hi." }, onToolResult: { text: "Done." } });

/** The scripted GGUF with zeros after its tensor data, to `size` bytes. */
function padded(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(GGUF);
  return bytes;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

downloadTest(
  "fetchModel() downloads, verifies and records a GGUF, then never fetches it again",
  async (dir) => {
    await using server = startModelFileServer({ "/m.gguf": GGUF });
    const sha256 = await crypto.subtle.digest("SHA-256", new Uint8Array(GGUF)).then((h) =>
      Array.from(new Uint8Array(h), (b) => b.toString(16).padStart(2, "0")).join("")
    );
    const source = { uri: `${server.origin}/m.gguf`, sha256, sizeBytes: GGUF.length };
    const starts: { totalBytes: number; resumedBytes: number }[] = [];
    let last = 0;
    let verifying = false;
    const first = await fetchModel(source, {
      dir,
      onStart: ({ totalBytes, resumedBytes }) => void starts.push({ totalBytes, resumedBytes }),
      onProgress: (done) => void (last = done),
      onVerify: () => void (verifying = true),
    });
    assert(first.ok, JSON.stringify(first));
    assertEquals(first.value.downloaded, true);
    assertEquals(starts, [{ totalBytes: GGUF.length, resumedBytes: 0 }]);
    assertEquals(last, GGUF.length);
    assert(verifying);
    assertEquals(await sha256File(first.value.path), sha256);
    assertEquals(await findCachedModel(source, dir), first.value.path);

    const before = server.requests.length;
    const second = await fetchModel(source, { dir, onStart: () => assert(false, "no download") });
    assert(second.ok);
    assertEquals(second.value, { path: first.value.path, downloaded: false });
    assertEquals(server.requests.length, before, "the second run sends no request");
  },
);

downloadTest("fetchModel() continues an interrupted download with Range requests", async (dir) => {
  const size = 12 * 1024 * 1024;
  const file = padded(size);
  await using server = startModelFileServer({ "/big.gguf": file });
  const source = { uri: `${server.origin}/big.gguf` };
  // The network dies mid-body: each range stops after 2.5 MiB, so of the downloader's 5 MiB
  // chunks only the last (2 MiB) completes and is saved.
  server.stallAfter(2.5 * 1024 * 1024);
  const stop = new AbortController();
  let seen = 0;
  const interrupted = fetchModel(source, {
    dir,
    signal: stop.signal,
    onProgress: (done) => void (seen = done),
  });
  await chunkSaved(`${dir}/big.gguf.ipull`, size);
  stop.abort();
  const first = await interrupted;
  assert(!first.ok);
  match(
    first.error.kind === "usage" ? first.error.message : "",
    /stopped: run harness again to continue from the \d+ bytes kept in ".*big\.gguf\.ipull"/,
  );
  assert(seen >= 7 * 1024 * 1024, `progress reached ${seen}`);
  assert(await exists(`${dir}/big.gguf.ipull`), "the partial file stays");
  assert(!await exists(`${dir}/big.gguf`));

  server.stallAfter(undefined);
  const requestsBefore = server.requests.length;
  let resumed = -1;
  const second = await fetchModel(source, {
    dir,
    onStart: ({ resumedBytes }) => void (resumed = resumedBytes),
  });
  assert(second.ok, JSON.stringify(second));
  assert(resumed >= 5 * 1024 * 1024, `resumed from ${resumed}`);
  const ranged = server.requests.slice(requestsBefore).filter((r) => r.range !== null);
  assert(ranged.length > 0, JSON.stringify(server.requests));
  const sentNow = ranged.reduce((n, r) => n + r.sent, 0);
  // The last chunk (2 MiB of the 12) was complete and saved: it is not fetched again.
  assertEquals(sentNow, size - 2 * 1024 * 1024);
  assertEquals(await Deno.readFile(second.value.path), file);
  assert(!await exists(`${dir}/big.gguf.ipull`));
});

downloadTest("fetchModel() deletes a download that is not a GGUF file and says so", async (dir) => {
  const garbage = new TextEncoder().encode("<html>Sign in to continue</html>".repeat(100));
  await using server = startModelFileServer({ "/m.gguf": garbage });
  const result = await fetchModel({ uri: `${server.origin}/m.gguf` }, { dir });
  assert(!result.ok);
  const message = result.error.kind === "usage" ? result.error.message : "";
  match(
    message,
    /^Downloaded model ".*m\.gguf" is corrupted: it does not start like a GGUF file: it was deleted; run harness again to download it again$/,
  );
  assert(!await exists(`${dir}/m.gguf`));
  assertEquals(await findCachedModel({ uri: `${server.origin}/m.gguf` }, dir), undefined);
});

downloadTest("fetchModel() deletes a GGUF whose SHA-256 is not the one expected", async (dir) => {
  await using server = startModelFileServer({ "/m.gguf": GGUF });
  const wrong = "0".repeat(64);
  const result = await fetchModel({ uri: `${server.origin}/m.gguf`, sha256: wrong }, { dir });
  assert(!result.ok);
  match(
    result.error.kind === "usage" ? result.error.message : "",
    /is corrupted: its SHA-256 is [0-9a-f]{64}, expected 0{64}: it was deleted/,
  );
  assert(!await exists(`${dir}/m.gguf`));
});

downloadTest("fetchModel() rejects a GGUF whose header is cut off", async (dir) => {
  const cut = GGUF.slice(0, 200);
  await using server = startModelFileServer({ "/m.gguf": cut });
  const result = await fetchModel({ uri: `${server.origin}/m.gguf` }, { dir });
  assert(!result.ok);
  match(
    result.error.kind === "usage" ? result.error.message : "",
    /is corrupted: its GGUF header is cut off: it ends at byte \d+ of 200: it was deleted/,
  );
});

downloadTest("fetchModel() rejects a GGUF whose tensor data is cut off", async (dir) => {
  const cut = GGUF.slice(0, GGUF.length - 1000);
  await using server = startModelFileServer({ "/m.gguf": cut });
  const result = await fetchModel({ uri: `${server.origin}/m.gguf` }, { dir });
  assert(!result.ok);
  match(
    result.error.kind === "usage" ? result.error.message : "",
    new RegExp(
      `its tensor data is cut off: it needs ${GGUF.length} bytes, the file has ${cut.length}`,
    ),
  );
});

downloadTest(
  "fetchModel() names the URL of a 404 and what to check, without downloading",
  async (dir) => {
    await using server = startModelFileServer({});
    const uri = `${server.origin}/no-such.gguf`;
    const result = await fetchModel({ uri }, { dir });
    assert(!result.ok);
    assertEquals(
      result.error.kind === "usage" ? result.error.message : "",
      `Cannot download model "${uri}": "${uri}" answered 404 Not Found: check the repository, ` +
        "file name and revision in --model-file or default_model",
    );
    assertEquals(server.requests.length, 1);
  },
);

downloadTest("fetchModel() fails at once when the host does not answer", async (dir) => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now
  const started = Date.now();
  const result = await fetchModel({ uri: `http://127.0.0.1:${port}/m.gguf` }, { dir });
  assert(!result.ok);
  match(
    result.error.kind === "usage" ? result.error.message : "",
    new RegExp(`cannot reach "127\\.0\\.0\\.1:${port}": .*: check the network connection`),
  );
  assert(Date.now() - started < 5000);
});

downloadTest(
  "fetchModel() refuses a file whose size differs from the one expected",
  async (dir) => {
    await using server = startModelFileServer({ "/m.gguf": GGUF });
    const uri = `${server.origin}/m.gguf`;
    const result = await fetchModel({ uri, sizeBytes: GGUF.length + 1 }, { dir });
    assert(!result.ok);
    match(
      result.error.kind === "usage" ? result.error.message : "",
      new RegExp(`the server offers ${GGUF.length} bytes, expected ${GGUF.length + 1}`),
    );
    assertEquals(server.requests.filter((r) => r.range !== null).length, 0, "no body was fetched");
  },
);

downloadTest("fetchModel() resolves an hf: reference against HF_ENDPOINT", async (dir) => {
  await using server = startModelFileServer({
    "/me/tiny-GGUF/resolve/rev1/tiny-Q4_K_M.gguf": GGUF,
  });
  const previous = Deno.env.get("HF_ENDPOINT");
  Deno.env.set("HF_ENDPOINT", `${server.origin}/`);
  try {
    const source = { uri: "hf:me/tiny-GGUF/tiny-Q4_K_M.gguf#rev1" };
    const result = await fetchModel(source, { dir });
    assert(result.ok, JSON.stringify(result));
    assertEquals(await Deno.readFile(result.value.path), GGUF);
    assertEquals(await findCachedModel(source, dir), result.value.path);
  } finally {
    if (previous === undefined) Deno.env.delete("HF_ENDPOINT");
    else Deno.env.set("HF_ENDPOINT", previous);
  }
});
