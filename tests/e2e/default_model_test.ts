// End-to-end tests of the embedded default (issue 16): with no model server on this machine,
// the real CLI downloads the `default_model` from a loopback server serving a scripted GGUF
// (tests/fixtures/make_scripted_gguf.ts), verifies it, runs it in-process and answers; a
// second run uses the cached file without a request. A cloned repository's config cannot
// name the model or where it comes from. Ignored (with the reason) when node-llama-cpp is not
// installed or a model server listens on one of the ports harness looks at.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import {
  installedVersion,
  NODE_LLAMA_CPP_VERSION,
} from "../../src/providers/llama_cpp/node_llama_cpp.ts";
import { makeScriptedGguf } from "../fixtures/make_scripted_gguf.ts";
import { type CliSandbox, cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import { chunkSaved, startModelFileServer } from "../helpers/model_file_server.ts";
import { lastScreenLine, startPty } from "../helpers/pty.ts";

const installed = await installedVersion() === NODE_LLAMA_CPP_VERSION;

/** What `deno run` writes to clear its progress line when it loads a module lazily. */
const DENO_CLEAR = "\x1b[0G\x1b[2K\x1b[J";

/** Whether something listens on a port harness probes for a model server. */
async function serverPortTaken(): Promise<number | undefined> {
  for (const port of [11434, 8080, 1234, 8000]) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return port;
    } catch {
      // nothing there
    }
  }
  return undefined;
}

const taken = await serverPortTaken();
const REASON = !installed
  ? "node-llama-cpp is not installed (run `deno task install-llama`)"
  : taken !== undefined
  ? `a server listens on 127.0.0.1:${taken}, so harness would use it`
  : undefined;

function noServerTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name: REASON ? `${name} [ignored: ${REASON}]` : name, ignore: !!REASON, fn });
}

// The scripted vocabulary spells most prompt text a byte at a time: a long context.
const CTX = ["--ctx-size", "65536"];
const SCRIPTED = makeScriptedGguf({
  contextLength: 65536,
  onUser: { text: "Hello from the default model." },
  onToolResult: { text: "x" },
});

async function writeUserConfig(sandbox: CliSandbox, config: unknown): Promise<void> {
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(`${sandbox.home}/.config/harness/config.jsonc`, JSON.stringify(config));
}

function ranged(server: { requests: { range: string | null; sent: number }[] }, from = 0) {
  return server.requests.slice(from).filter((r) => r.range !== null);
}

noServerTest(
  "an untrusted project config cannot name the default model or fetch from its host",
  async () => {
    await using sandbox = await cliSandbox();
    await using good = startModelFileServer({ "/scripted.gguf": SCRIPTED });
    await using evil = startModelFileServer({ "/evil.gguf": SCRIPTED });
    await writeUserConfig(sandbox, {
      default_model: { uri: `${good.origin}/scripted.gguf`, name: "Scripted" },
    });
    await Deno.mkdir(`${sandbox.cwd}/.harness`);
    await Deno.writeTextFile(
      `${sandbox.cwd}/.harness/config.jsonc`,
      JSON.stringify({ default_model: `${evil.origin}/evil.gguf` }),
    );
    const out = await sandbox.run(["-p", "hi", "--yes", ...CTX, "--output-format", "json"]);
    assertEquals(evil.requests, [], "nothing is fetched from the project config's host");
    match(out.stderr, /Ignoring "default_model" of the untrusted project config/);
    assertEquals(out.code, 0, out.stderr);
    assertEquals(lastJsonLine(out.stdout).result, "Hello from the default model.");

    // A URL --model-file from the project config is ignored the same way.
    await Deno.writeTextFile(
      `${sandbox.cwd}/.harness/config.jsonc`,
      JSON.stringify({ model_file: `${evil.origin}/evil.gguf` }),
    );
    const again = await sandbox.run(["-p", "hi", ...CTX, "--output-format", "json"]);
    assertEquals(evil.requests, []);
    assertEquals(again.code, 0, again.stderr);
  },
);

noServerTest(
  "harness -p --yes with no server downloads the default model once and answers",
  async () => {
    await using sandbox = await cliSandbox();
    await using server = startModelFileServer({ "/scripted.gguf": SCRIPTED });
    await writeUserConfig(sandbox, {
      default_model: { uri: `${server.origin}/scripted.gguf`, name: "Scripted" },
    });

    // Without --yes: the no-server message, and how to download.
    const refused = await sandbox.run(["-p", "hi", ...CTX]);
    assertEquals(refused.code, 1);
    match(refused.stderr, /no local model server answered\. Start one, or pass --base-url URL:/);
    match(refused.stderr, /llama-server --jinja/);
    match(
      refused.stderr,
      /Or pass --yes to download the default model Scripted into ".*\/home\/\.cache\/harness\/models" and run it here/,
    );
    assertEquals(server.requests, [], "nothing is downloaded without --yes");

    const out = await sandbox.run(["-p", "hi", "--yes", ...CTX, "--output-format", "json"]);
    assertEquals(out.code, 0, out.stderr);
    assertEquals(lastJsonLine(out.stdout).result, "Hello from the default model.");
    // stderr is not a terminal: plain progress lines.
    match(out.stderr, /Downloading Scripted \([\d.]+ KB\) to .*scripted\.gguf\n/);
    match(out.stderr, /Downloading Scripted {2}[\d.]+ KB \/ [\d.]+ KB {2}100%/);
    match(out.stderr, /note: No model server answered: running Scripted here/);
    const cached = `${sandbox.home}/.cache/harness/models/scripted.gguf`;
    assertEquals(await Deno.readFile(cached), SCRIPTED);

    // Never fetched twice: the next run (even without --yes) uses the verified file.
    const before = server.requests.length;
    const second = await sandbox.run(["-p", "hi", ...CTX, "--output-format", "json"]);
    assertEquals(second.code, 0, second.stderr);
    assertEquals(lastJsonLine(second.stdout).result, "Hello from the default model.");
    assertEquals(server.requests.length, before, "the second run sends no request");
    assert(!second.stderr.includes("Downloading"), second.stderr);
  },
);

noServerTest("the REPL asks before downloading the default model, with its size", async () => {
  await using sandbox = await cliSandbox();
  await using server = startModelFileServer({ "/scripted.gguf": SCRIPTED });
  await writeUserConfig(sandbox, { default_model: `${server.origin}/scripted.gguf` });
  const declined = await sandbox.run([...CTX], { stdin: "n\n" });
  assertEquals(declined.code, 1);
  match(declined.stderr, /no local model server answered/);
  match(
    declined.stderr,
    /Download http:\/\/127\.0\.0\.1:\d+\/scripted\.gguf \([\d.]+ KB\) into .*\/models and run it here\? \[y\/N\] /,
  );
  match(declined.stderr, /No model to run: start a model server \(see above\), or pass --base-url/);
  assertEquals(ranged(server), [], "only the size was asked for");

  const repl = await sandbox.run([...CTX], { stdin: "y\nhi\n" });
  assertEquals(repl.code, 0, repl.stderr);
  match(repl.stdout, /Hello from the default model\./);
});

noServerTest("an interrupted download of the default model continues on the next run", async () => {
  await using sandbox = await cliSandbox();
  // Zeros after the tensor data make it 12 MiB: more than one 5 MiB chunk of the downloader.
  const big = new Uint8Array(12 * 1024 * 1024);
  big.set(SCRIPTED);
  await using server = startModelFileServer({ "/big.gguf": big });
  await writeUserConfig(sandbox, { default_model: `${server.origin}/big.gguf` });
  // The network dies mid-body: each range stops after 2.5 MiB, so of the downloader's 5 MiB
  // chunks only the last (2 MiB) completes.
  server.stallAfter(2.5 * 1024 * 1024);
  const child = sandbox.spawn(["-p", "hi", "--yes", ...CTX]);
  const partial = `${sandbox.home}/.cache/harness/models/big.gguf.ipull`;
  await chunkSaved(partial, big.length);
  child.kill("SIGINT"); // Ctrl-C
  const first = await child.output();
  assert(first.code !== 0);
  assert((await Deno.stat(partial)).isFile, "the partial download stays");

  server.stallAfter(undefined);
  const from = server.requests.length;
  const out = await sandbox.run(["-p", "hi", "--yes", ...CTX, "--output-format", "json"]);
  assertEquals(out.code, 0, out.stderr);
  assertEquals(lastJsonLine(out.stdout).result, "Hello from the default model.");
  match(out.stderr, /continuing from [\d.]+ MB/);
  const again = ranged(server, from);
  assert(again.length > 0);
  const sent = again.reduce((n, r) => n + r.sent, 0);
  assertEquals(sent, 10 * 1024 * 1024, "the saved 2 MiB chunk is not fetched again");
});

noServerTest("a corrupted or missing default model is reported and not used", async () => {
  await using sandbox = await cliSandbox();
  const corrupt = SCRIPTED.slice();
  corrupt.set(new TextEncoder().encode("JUNK"), 0);
  await using server = startModelFileServer({ "/bad.gguf": corrupt });
  await writeUserConfig(sandbox, { default_model: `${server.origin}/bad.gguf` });
  const bad = await sandbox.run(["-p", "hi", "--yes", ...CTX]);
  assertEquals(bad.code, 1);
  match(
    bad.stderr,
    /Downloaded model ".*bad\.gguf" is corrupted: it does not start like a GGUF file: it was deleted/,
  );

  await writeUserConfig(sandbox, { default_model: `${server.origin}/gone.gguf` });
  const missing = await sandbox.run(["-p", "hi", "--yes", ...CTX]);
  assertEquals(missing.code, 1);
  match(
    missing.stderr,
    /Cannot download model "http:\/\/127\.0\.0\.1:\d+\/gone\.gguf": ".*gone\.gguf" answered 404 Not Found: check the repository, file name and revision/,
  );
});

noServerTest("--model-file takes an hf: reference and an https-style URL", async () => {
  await using sandbox = await cliSandbox();
  await using server = startModelFileServer({
    "/me/tiny-GGUF/resolve/main/tiny.gguf": SCRIPTED,
    "/direct/tiny2.gguf": SCRIPTED,
  });
  const env = { HF_ENDPOINT: `${server.origin}/` };
  const hf = await sandbox.run(
    ["-p", "hi", "--model-file", "hf:me/tiny-GGUF/tiny.gguf", ...CTX, "--output-format", "json"],
    { env },
  );
  assertEquals(hf.code, 0, hf.stderr);
  assertEquals(lastJsonLine(hf.stdout).result, "Hello from the default model.");
  const url = await sandbox.run([
    "-p",
    "hi",
    "--model-file",
    `${server.origin}/direct/tiny2.gguf`,
    ...CTX,
    "--output-format",
    "json",
  ]);
  assertEquals(url.code, 0, url.stderr);
  assertEquals(lastJsonLine(url.stdout).result, "Hello from the default model.");
});

noServerTest(
  "on a terminal, the REPL's early prompt gives way to the download question",
  async () => {
    await using sandbox = await cliSandbox();
    await using server = startModelFileServer({ "/scripted.gguf": SCRIPTED });
    // A named model shows the banner and prompt before discovery (src/cli/prompt_ahead.ts).
    await writeUserConfig(sandbox, {
      model: "qwen3",
      default_model: { uri: `${server.origin}/scripted.gguf`, name: "Scripted" },
    });
    await using pty = startPty(sandbox, CTX);
    await pty.waitFor((out) => out.includes("[y/N]"), "the download question", 90_000);
    match(pty.output, /no local model server answered/);
    await pty.type("y\r");
    await pty.waitFor(
      (out) => out.includes("Checking the downloaded file"),
      "the download",
      90_000,
    );
    // The progress line redraws in place and shows size, speed and time left.
    const redrawn = "\r\x1b[2KDownloading Scripted  ";
    assert(pty.output.includes(redrawn), pty.output);
    match(pty.output.split(redrawn)[1]!, /^[\d.]+ KB \/ [\d.]+ KB {2}\d+%/);
    await pty.waitFor(
      (out) => lastScreenLine(out).trim() === ">" && !lastScreenLine(out).includes("Loading"),
      "the prompt after loading",
      90_000,
    );
    await pty.type("hi\r");
    // The answer streams, then the prompt comes back. `deno run` (not the compiled binary)
    // writes ESC[0G ESC[2K ESC[J whenever a module loads lazily, which can fall anywhere in
    // the answer: that sequence is dropped before matching; the renderer's own are kept.
    await pty.waitFor(
      (out) =>
        /Hello from the default[^]*model\.[^]*> /.test(out.replaceAll(DENO_CLEAR, "")) &&
        lastScreenLine(out).trim() === ">",
      "the answer and the prompt after it",
      90_000,
    );
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
);
