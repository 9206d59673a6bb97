// changePort: the port of a call that changes one file reads only where it may write, so a
// change that cannot happen reads nothing (an editor is never asked); the refusal is the
// port's own.

import { deepStrictEqual as assertEquals, rejects } from "node:assert/strict";
import { changePort, type FilePort } from "../../src/tools/file_port.ts";
import { ToolError } from "../../src/tools/define_tool.ts";

/** A port over a map of texts that logs each access; writes under /protected are refused. */
function loggingPort(calls: string[], withCheck: boolean): FilePort {
  const texts = new Map([["/w/a.txt", "a\n"], ["/protected/x", "x\n"]]);
  const refuse = (abs: string) => {
    if (abs.startsWith("/protected/")) {
      throw new ToolError("permission_denied", `"${abs}" is protected: it is not written`);
    }
  };
  return {
    read(abs) {
      calls.push(`read ${abs}`);
      return Promise.resolve(new TextEncoder().encode(texts.get(abs) ?? ""));
    },
    write(abs, content) {
      calls.push(`write ${abs}`);
      refuse(abs);
      texts.set(abs, content);
      return Promise.resolve({ bytes: content.length, existed: true, links: 1 });
    },
    stat(abs) {
      calls.push(`stat ${abs}`);
      return Promise.resolve({ kind: "file", size: 2 });
    },
    list(abs) {
      calls.push(`list ${abs}`);
      return Promise.resolve([]);
    },
    ...(withCheck ? { mayWrite: refuse } : {}),
  };
}

Deno.test("changePort() refuses reads where the change could not be written, before the port reads", async () => {
  const calls: string[] = [];
  const port = changePort(loggingPort(calls, true));
  await rejects(port.read("/protected/x", "x"), /is protected/);
  await rejects(port.stat("/protected/x"), /is protected/);
  assertEquals(calls, []);
  // Where the change may be written, the port serves it as before.
  assertEquals(new TextDecoder().decode(await port.read("/w/a.txt", "a.txt")), "a\n");
  await port.write("/w/a.txt", "b\n", "a.txt");
  assertEquals(calls, ["read /w/a.txt", "write /w/a.txt"]);
});

Deno.test("changePort() leaves a port without a write check as it is", () => {
  const port = loggingPort([], false);
  assertEquals(changePort(port), port);
});
