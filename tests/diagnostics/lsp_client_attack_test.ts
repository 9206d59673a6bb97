// A language server is a program the client cannot vouch for: one that writes bytes with no
// header end, or announces a body of 100 GB and streams it, must end its client at once, never
// grow harness's memory without bound.

import { match, ok as assert } from "node:assert/strict";
import { LspClient } from "../../src/diagnostics/lsp_client.ts";

async function hostile(script: string): Promise<void> {
  const child = new Deno.Command("sh", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const client = new LspClient(child);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = client.request("initialize", {}).then(
      () => "answered",
      (error: Error) => error.message,
    );
    const late = new Promise<string>((settle) => timer = setTimeout(() => settle("late"), 5000));
    const outcome = await Promise.race([answer, late]);
    assert(outcome !== "late", "the client still reads the server after 5 s");
    match(outcome, /the server ended/);
    assert(client.closed);
  } finally {
    clearTimeout(timer);
    await client.close(100);
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
  }
}

Deno.test("attack: a server that never ends a header ends its client", async () => {
  await hostile("exec yes");
});

Deno.test("attack: a server that announces a body of 100 GB ends its client", async () => {
  await hostile("printf 'Content-Length: 100000000000\\r\\n\\r\\n'; exec yes");
});
