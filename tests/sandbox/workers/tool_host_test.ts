import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { discoverPlugins } from "../../../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../../../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../../../src/sandbox/workers/tool_host.ts";

const fixtures = fileURLToPath(new URL("../../fixtures/plugins/", import.meta.url));

interface Sandbox extends AsyncDisposable {
  host: ToolHost;
  workspace: string;
  outside: string;
  errors: string[];
}

/** A ToolHost over fixture plugins, with a temp workspace and a temp folder outside it. */
async function sandbox(
  flags: (dirs: { workspace: string; outside: string }) => string[],
  options: { folders?: string[]; timeouts?: Record<string, number>; toolOutputLimit?: number } = {},
): Promise<Sandbox> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_ws_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_out_" }));
  const parsed = parseGrantFlags(flags({ workspace, outside }), { cwd: workspace });
  if (!parsed.ok) throw new Error("bad flags");
  const { files } = await discoverPlugins({
    builtinDir: null,
    userDir: null,
    cwd: workspace,
    pluginDirs: (options.folders ?? ["basic"]).map((f) => join(fixtures, f)),
  });
  const { host, errors } = await createToolHost({
    grants: parsed.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
    abortGraceMs: 200,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.toolOutputLimit ? { toolOutputLimit: options.toolOutputLimit } : {}),
  });
  return {
    host,
    workspace,
    outside,
    errors: errors.map((e) => (e.kind === "plugin_invalid" ? `${e.file}: ${e.reason}` : e.kind)),
    async [Symbol.asyncDispose]() {
      await host.close();
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test("ToolHost.run() reads and writes inside the grants", async () => {
  await using s = await sandbox(({ workspace }) => [
    `--allow-read=${workspace}`,
    `--allow-write=${workspace}`,
  ]);
  const file = join(s.workspace, "a.txt");
  const wrote = await s.host.run("write_text", { path: file, text: "hello" }, { state: {} });
  assertEquals(wrote.result.error_type, "none");
  const read = await s.host.run("read_text", { path: file }, { state: {} });
  assertEquals([read.result.success, read.result.data], [true, "hello"]);
});

Deno.test("ToolHost.run() maps NotCapable to permission_denied", async () => {
  await using s = await sandbox(({ workspace }) => [
    `--allow-read=${workspace}`,
    `--allow-write=${workspace}`,
  ]);
  const secret = join(s.outside, "secret.txt");
  await Deno.writeTextFile(secret, "top secret");
  const read = await s.host.run("read_text", { path: secret }, { state: {} });
  assertEquals(read.result.error_type, "permission_denied");
  assertEquals(
    read.result.error_message,
    `Requires read access to "${secret}": restart harness with --allow-read=${secret}`,
  );
  const target = join(s.outside, "new.txt");
  const write = await s.host.run("write_text", { path: target, text: "x" }, { state: {} });
  assertEquals(write.result.error_type, "permission_denied");
  assertEquals(
    write.result.error_message,
    `Requires write access to "${target}": restart harness with --allow-write=${target}`,
  );
  assert(!(await Deno.stat(target).then(() => true, () => false)), "file must not exist");
  // Read access granted only to import the plugin files is revoked before tools run.
  const plugin = join(fixtures, "basic", "read_text.ts");
  const source = await s.host.run("read_text", { path: plugin }, { state: {} });
  assertEquals(source.result.error_type, "permission_denied");
});

Deno.test("ToolHost.run() narrows the grants to what the tool declares", async () => {
  await using s = await sandbox(() => ["-A"]);
  const secret = join(s.outside, "secret.txt");
  await Deno.writeTextFile(secret, "top secret");
  const run = await s.host.run("read_workspace", { path: secret }, { state: {} });
  assertEquals(run.result.error_type, "permission_denied");
  assertEquals(
    run.result.error_message,
    `Requires read access to "${secret}": tool "read_workspace" does not declare it in its permissions`,
  );
  // echo declares nothing, so it cannot read even with -A; read_text declares read: true.
  assertEquals(
    (await s.host.run("read_text", { path: secret }, { state: {} })).result.data,
    "top secret",
  );
});

Deno.test("ToolHost.run() enforces --deny-read inside an allowed folder and --deny-write", async () => {
  await using s = await sandbox(({ workspace }) => [
    `--allow-read=${workspace}`,
    `--deny-read=${join(workspace, ".env")}`,
    `--allow-write=${workspace}`,
    `--deny-write=${workspace}`,
  ]);
  await Deno.writeTextFile(join(s.workspace, ".env"), "KEY=1");
  await Deno.writeTextFile(join(s.workspace, "ok.txt"), "fine");
  const denied = await s.host.run("read_text", { path: join(s.workspace, ".env") }, { state: {} });
  assertEquals(denied.result.error_type, "permission_denied");
  assertEquals(
    denied.result.error_message,
    `Requires read access to "${join(s.workspace, ".env")}": it is denied by --deny-read`,
  );
  assertEquals(
    (await s.host.run("read_text", { path: join(s.workspace, "ok.txt") }, { state: {} })).result
      .data,
    "fine",
  );
  const write = await s.host.run("write_text", { path: join(s.workspace, "x"), text: "" }, {
    state: {},
  });
  assertEquals(write.result.error_type, "permission_denied");
});

Deno.test("createToolHost() reports broken and duplicate plugins and keeps the rest", async () => {
  await using s = await sandbox(() => [], { folders: ["basic", "broken", "dup"] });
  const names = s.host.list().map((t) => t.name);
  assert(names.includes("echo") && names.includes("shout"));
  assert(!names.includes("throws_on_import") && !names.includes("bad_definition"));
  const reasons = Object.fromEntries(
    s.errors.map((
      e,
    ) => [e.slice(fixtures.length).split(":")[0], e.split(": ").slice(1).join(": ")]),
  );
  assertEquals(reasons["broken/throws_on_import.ts"], "cannot start: missing configuration");
  assertEquals(
    reasons["broken/bad_definition.ts"],
    'bad definition: "description" must have at least 1 character, got ""; "risk" must be one of ' +
      '"safe", "low", "medium", "high", got "extreme"; "run" must be a function',
  );
  assertEquals(
    reasons["broken/wrong_name.js"],
    'its name "other_name" differs from the file name: rename the tool or the file to "wrong_name"',
  );
  assert(reasons["broken/no_default.ts"]?.startsWith("it has no default export"));
  assertEquals(
    reasons["dup/echo.js"],
    `a tool named "echo" is already loaded from "${join(fixtures, "basic/echo.ts")}": ` +
      "rename or remove one of them",
  );
  assertEquals(s.errors.length, 5);
  assertEquals((await s.host.run("echo", { text: "hi" }, { state: {} })).result.data, "hi");
});

Deno.test("createToolHost() loads a factory-form plugin and computes its JSON Schema", async () => {
  await using s = await sandbox(() => []);
  const shout = s.host.list().find((t) => t.name === "shout");
  assertEquals(shout?.parameters, {
    type: "object",
    properties: { text: { type: "string", description: "Text" } },
    required: ["text"],
  });
  assertEquals(shout?.origin, "flag");
  assertEquals((await s.host.run("shout", { text: "hey" }, { state: {} })).result.data, "HEY");
});

Deno.test("ToolHost.validate() explains issues in plain words", async () => {
  await using s = await sandbox(() => []);
  assertEquals(await s.host.validate("echo", {}), {
    ok: false,
    error: ['"text" is required: expected a string'],
  });
  assertEquals(await s.host.validate("echo", { text: "a", limit: "ten" }), {
    ok: false,
    error: ['"limit" must be a number, got "ten"'],
  });
  assertEquals(await s.host.validate("echo", { text: "a", limit: 0 }), {
    ok: false,
    error: ['"limit" must be at least 1, got 0'],
  });
  assertEquals(await s.host.validate("echo", { text: "a" }), { ok: true, value: { text: "a" } });
  const unknown = await s.host.validate("nope", {});
  assert(!unknown.ok && unknown.error[0]?.startsWith('Unknown tool "nope": available tools are'));
});

Deno.test("ToolHost.run() maps thrown errors to result types", async () => {
  await using s = await sandbox(({ workspace }) => [`--allow-read=${workspace}`]);
  const run = (how: string) => s.host.run("fail", { how }, { state: {} });
  const toolError = await run("tool_error");
  assertEquals([toolError.result.error_type, toolError.result.error_message], [
    "parse_error",
    'Cannot parse "x": bad input',
  ]);
  const typeError = await run("type_error");
  assertEquals([typeError.result.error_type, typeError.result.error_message], [
    "internal_error",
    "TypeError: x is not a function",
  ]);
  const plain = await run("error");
  assertEquals([plain.result.error_type, plain.result.error_message], [
    "internal_error",
    "Something broke",
  ]);
  assertEquals((await run("string")).result.error_type, "internal_error");
  const missing = await run("not_found");
  assertEquals(missing.result.error_type, "not_found");
  assert(missing.result.error_message?.startsWith("No such file or directory"));
});

Deno.test("ToolHost.run() times out a hung tool and starts a fresh worker", async () => {
  await using s = await sandbox(() => [], { timeouts: { wait_abort: 300 } });
  // The worker starts first, so the time measured is the call's alone: under a loaded CI a
  // worker's start took seconds and failed a bound meant for the 0.3 s limit.
  await s.host.run("echo", { text: "warm up" }, { state: {} });
  const started = performance.now();
  const hung = await s.host.run("hang", {}, { state: {} });
  assertEquals(hung.result.error_type, "timeout");
  assert(hung.result.error_message?.startsWith('Tool "hang" did not finish within 0.3 s'));
  // Far below the 120 s default: the tool's own 0.3 s limit stopped it.
  assert(performance.now() - started < 10_000);
  // The host-side override applies too, and the next call gets a working worker.
  assertEquals(
    (await s.host.run("wait_abort", { ignore: true }, { state: {} })).result.error_type,
    "timeout",
  );
  assertEquals((await s.host.run("echo", { text: "alive" }, { state: {} })).result.data, "alive");
});

Deno.test("ToolHost.run() survives a tool that calls Deno.exit, self.close or throws in a timer", async () => {
  await using s = await sandbox(() => []);
  for (const how of ["exit", "close", "timer"]) {
    const run = await s.host.run("exit", { how }, { state: {} });
    assertEquals(run.result.error_type, "internal_error", how);
    assert(run.result.error_message?.includes("crashed"), run.result.error_message ?? "");
    assertEquals((await s.host.run("echo", { text: how }, { state: {} })).result.data, how);
  }
});

Deno.test("ToolHost.run() cancels a call when the signal aborts", async () => {
  await using s = await sandbox(() => []);
  await s.host.run("echo", { text: "warm up" }, { state: {} });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const run = await s.host.run("wait_abort", {}, { signal: controller.signal, state: {} });
  assertEquals(run.result.error_type, "cancelled");
  assertEquals(run.state, { sawAbort: true }); // the tool saw ctx.signal fire
  const stubborn = new AbortController();
  setTimeout(() => stubborn.abort(), 50);
  const ignored = await s.host.run("wait_abort", { ignore: true }, {
    signal: stubborn.signal,
    state: {},
  });
  assertEquals(ignored.result.error_type, "cancelled");
  assertEquals((await s.host.run("echo", { text: "next" }, { state: {} })).result.data, "next");
  const early = new AbortController();
  early.abort();
  const before = await s.host.run("echo", { text: "x" }, { signal: early.signal, state: {} });
  assertEquals(before.result.error_type, "cancelled");
});

Deno.test("ToolHost.run() carries conversation state through the worker", async () => {
  await using s = await sandbox(() => []);
  const first = await s.host.run("add_task", { title: "one" }, { state: {} });
  const second = await s.host.run("add_task", { title: "two" }, { state: first.state });
  assertEquals(second.state, {
    tasks: [{ title: "one", done: false }, { title: "two", done: false }],
  });
  assertEquals(second.result.data, 'Added "two" (2 tasks)');
});

Deno.test("ToolHost.run() truncates long output and saves the full text", async () => {
  await using s = await sandbox(() => [], { toolOutputLimit: 1000 });
  const run = await s.host.run("big_output", { size: 5000 }, { state: {} });
  const truncated = run.result.metadata.truncated;
  assertEquals(truncated?.unit, "chars");
  assert((run.result.data ?? "").length <= 1000);
  assert(truncated?.full_output_path?.startsWith(join(s.workspace, ".harness")));
  const full = await Deno.readTextFile(truncated!.full_output_path!);
  assertEquals(full.length, 5000);
  assert(run.result.data?.includes(`saved to "${truncated!.full_output_path}"`));
  assertEquals(
    run.result.metadata.data_size_bytes,
    new TextEncoder().encode(run.result.data!).length,
  );
});
