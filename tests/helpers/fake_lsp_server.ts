// Test helper: a real language server process (run with `deno run -A`), speaking LSP over
// stdio. For each version of a document it publishes one error per line holding "ERR", with
// the version, unless FAKE_LSP_MODE says otherwise:
// - "stale": first publishes the previous version's diagnostics again, labelled with the
//   version before, then the real ones 50 ms later (a slow server catching up);
// - "unversioned": publishes without a version, the old text's diagnostics first, the new
//   text's FAKE_LSP_GAP_MS later (default 20);
// - "silent": never publishes;
// - "probe": tries to write a file in the workspace and to reach the network, and publishes
//   what happened as diagnostics of the first document opened;
// - "read": reads the file FAKE_LSP_READ names and publishes its first line (or why it could
//   not) as the diagnostic of each version;
// - "watchful": exits at once when initialize names a processId that is not alive here (as
//   pyright does: in the command sandbox's PID namespace harness's pid is not).

const mode = Deno.env.get("FAKE_LSP_MODE") ?? "normal";
const encoder = new TextEncoder();
const texts = new Map<string, string>();
let root = "";

function send(message: Record<string, unknown>): void {
  const body = encoder.encode(JSON.stringify({ jsonrpc: "2.0", ...message }));
  Deno.stdout.writeSync(encoder.encode(`Content-Length: ${body.length}\r\n\r\n`));
  Deno.stdout.writeSync(body);
}

function errorsOf(text: string): unknown[] {
  return text.split("\n").flatMap((line, i) =>
    line.includes("ERR")
      ? [{
        range: {
          start: { line: i, character: line.indexOf("ERR") },
          end: { line: i, character: line.length },
        },
        severity: 1,
        message: `bad token ERR`,
      }]
      : []
  );
}

function publish(uri: string, version: number | undefined, diagnostics: unknown[]): void {
  send({
    method: "textDocument/publishDiagnostics",
    params: { uri, ...(version === undefined ? {} : { version }), diagnostics },
  });
}

async function probe(): Promise<unknown[]> {
  const results: string[] = [];
  try {
    await Deno.writeTextFile(`${root}/pwned`, "x");
    results.push("wrote the workspace");
  } catch (error) {
    results.push(`write refused: ${(error as Error).name}`);
  }
  try {
    await fetch("http://127.0.0.1:9/", { signal: AbortSignal.timeout(1000) });
    results.push("reached the network");
  } catch (error) {
    results.push(`network refused: ${(error as Error).name}`);
  }
  return results.map((message) => ({
    range: { start: { line: 0, character: 0 } },
    severity: 1,
    message,
  }));
}

async function readProbe(): Promise<unknown[]> {
  let message: string;
  try {
    const text = await Deno.readTextFile(Deno.env.get("FAKE_LSP_READ") ?? "");
    message = `read: ${text.split("\n")[0]}`;
  } catch (error) {
    message = `read refused: ${(error as Error).name}`;
  }
  return [{ range: { start: { line: 0, character: 0 } }, severity: 1, message }];
}

async function handle(message: Record<string, unknown>): Promise<void> {
  const params = message.params as {
    rootPath?: string;
    processId?: number | null;
    textDocument: { uri: string; version: number; text?: string };
    contentChanges: { text: string }[];
  } | undefined;
  switch (message.method) {
    case "initialize":
      root = params?.rootPath ?? "";
      if (mode === "watchful" && typeof params?.processId === "number") {
        try {
          Deno.kill(params.processId, "SIGCONT");
        } catch {
          Deno.exit(0);
        }
      }
      send({ id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
      return;
    case "shutdown":
      send({ id: message.id, result: null });
      return;
    case "exit":
      Deno.exit(0);
      return;
    case "textDocument/didOpen":
    case "textDocument/didChange": {
      const uri = params!.textDocument.uri;
      const version = params!.textDocument.version;
      const text = params!.textDocument.text ?? params!.contentChanges[0]!.text;
      const old = texts.get(uri) ?? "";
      texts.set(uri, text);
      if (mode === "silent") return;
      if (mode === "probe") return publish(uri, version, await probe());
      if (mode === "read") return publish(uri, version, await readProbe());
      if (mode === "stale") publish(uri, version - 1, errorsOf(old));
      if (mode === "unversioned") {
        publish(uri, undefined, errorsOf(old));
        await new Promise((settle) =>
          setTimeout(settle, Number(Deno.env.get("FAKE_LSP_GAP_MS") ?? 20))
        );
      }
      if (mode === "stale") await new Promise((settle) => setTimeout(settle, 50));
      publish(uri, mode === "unversioned" ? undefined : version, errorsOf(text));
      return;
    }
    default:
      if (message.id !== undefined) send({ id: message.id, result: null });
  }
}

let buffer = new Uint8Array(0);
for await (const chunk of Deno.stdin.readable) {
  const joined = new Uint8Array(buffer.length + chunk.length);
  joined.set(buffer);
  joined.set(chunk, buffer.length);
  buffer = joined;
  while (true) {
    const head = new TextDecoder().decode(buffer.subarray(0, 200));
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) break;
    const length = Number(/Content-Length: (\d+)/i.exec(head)?.[1]);
    if (buffer.length < end + 4 + length) break;
    const body = new TextDecoder().decode(buffer.subarray(end + 4, end + 4 + length));
    buffer = buffer.slice(end + 4 + length);
    await handle(JSON.parse(body));
  }
}
