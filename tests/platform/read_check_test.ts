// The deny guard's check for node:fs readers (src/platform/read_check.ts) holds for every copy
// of the module: the bundled tool worker has its own, a plugin importing harness's readers
// gets the source file's. A second copy is made here with a query string; each test runs in a
// worker of its own, where the check is set once.

import { deepStrictEqual as assertEquals } from "node:assert/strict";

const MODULE = new URL("../../src/platform/read_check.ts", import.meta.url).href;

/** Runs `body` in a fresh worker and returns what it posts. */
function inWorker(body: string): Promise<string> {
  const code = `
    const one = await import(${JSON.stringify(MODULE)});
    const two = await import(${JSON.stringify(`${MODULE}?copy`)});
    const out = [];
    const attempt = (name, fn) => {
      try { fn(); out.push(name + ": allowed"); } catch (e) { out.push(name + ": " + e.name); }
    };
    ${body}
    self.postMessage(out.join("; "));
  `;
  const url = `data:application/javascript,${encodeURIComponent(code)}`;
  const worker = new Worker(url, { type: "module" });
  return new Promise((settle, fail) => {
    worker.onmessage = (event) => {
      worker.terminate();
      settle(event.data as string);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      fail(new Error(event.message));
    };
  });
}

Deno.test("the read check one copy of read_check.ts sets is asked by another copy", async () => {
  const out = await inWorker(`
    one.setReadCheck((path) => {
      if (path === "/denied") throw new Deno.errors.NotCapable("denied: " + path);
    });
    attempt("one denied", () => one.assertMayRead("/denied"));
    attempt("two denied", () => two.assertMayRead("/denied"));
    attempt("two other", () => two.assertMayRead("/other"));
  `);
  assertEquals(out, "one denied: NotCapable; two denied: NotCapable; two other: allowed");
});

Deno.test("a plugin cannot replace the check once the guard set it", async () => {
  const out = await inWorker(`
    one.setReadCheck(() => { throw new Deno.errors.NotCapable("denied"); });
    attempt("replace", () => two.setReadCheck(() => {}));
    attempt("assign", () => { globalThis[Symbol.for("harness.readCheck")] = () => {}; });
    attempt("still asked", () => one.assertMayRead("/x"));
  `);
  assertEquals(out, "replace: TypeError; assign: TypeError; still asked: NotCapable");
});
