// The `hooks` setting: Claude Code's shape accepted as it is (its events harness does not run
// included), mistakes named, and matchers decided as Claude Code decides them.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { checkHooks, matcherSelects, readHooks } from "../../src/config/hooks_config.ts";
import { parseConfigText } from "../../src/config/settings.ts";

Deno.test("checkHooks() accepts a Claude Code settings block as it is", () => {
  const block = {
    PreToolUse: [{
      matcher: "Bash",
      hooks: [{
        type: "command",
        command: "python3 check.py",
        timeout: 30,
        statusMessage: "Checking the command...",
      }],
    }],
    PostToolUse: [{
      matcher: "Edit|MultiEdit|Write",
      hooks: [{ type: "command", command: "fmt" }],
    }],
    Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }],
    // Events harness does not run may hold hooks it does not know.
    PostCompact: [{ hooks: [{ type: "http", url: "http://127.0.0.1:9/compacted" }] }],
    TaskCompleted: [{ hooks: [{ type: "agent", prompt: "check the task" }] }],
    Stop: [{ matcher: "*", hooks: [{ type: "command", command: "x" }] }],
  };
  assertEquals(checkHooks(block), undefined);
  assertEquals(Object.keys(readHooks(block)), ["PreToolUse", "PostToolUse", "Stop"]);
});

Deno.test("checkHooks() names the entry at fault", () => {
  const cases: [unknown, string][] = [
    [[], "expected an object of events"],
    [{ PreTool: [] }, 'unknown hook event "PreTool"'],
    [{ Stop: {} }, '"Stop" must be a list'],
    [{ Stop: [{ hooks: [{ type: "prompt", prompt: "x" }] }] }, 'harness runs only "command"'],
    [{ Stop: [{ hooks: [{ type: "command", command: "" }] }] }, '"Stop"[0].hooks[0].command'],
    [{ Stop: [{ hooks: [{ type: "command", command: "x", timeout: -1 }] }] }, "positive number"],
    [{ Stop: [{ hooks: [{ type: "command", command: "x", async: true }] }] }, 'key "async"'],
    [{ PreToolUse: [{ matcher: "(", hooks: [] }] }, "not a valid regular expression"],
    [{ PreToolUse: [{ matcher: "x", hook: [] }] }, 'unknown key "hook"'],
  ];
  for (const [value, expected] of cases) {
    const problem = checkHooks(value);
    assert(problem?.includes(expected), `${JSON.stringify(value)}: ${problem}`);
  }
});

Deno.test("matcherSelects() decides as Claude Code: all, exact names, or a pattern", () => {
  assert(matcherSelects(undefined, ["x"]));
  assert(matcherSelects("", ["x"]));
  assert(matcherSelects("*", ["x"]));
  assert(matcherSelects("Write", ["write_file", "Write"]));
  assert(!matcherSelects("Write", ["WriteFile"]), "a plain name is exact");
  assert(matcherSelects("Edit | Write", ["Edit"]));
  assert(matcherSelects("Notebook.*", ["NotebookEdit"]));
  assert(matcherSelects("mcp__github__.*", ["github__search", "mcp__github__search"]));
  assert(!matcherSelects("mcp__github__.*", ["fs__read", "mcp__fs__read"]));
});

Deno.test("parseConfigText() reads hooks and names a broken one with its file", async () => {
  const good = await parseConfigText(
    "c.jsonc",
    '{ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "x" }] }] } }',
  );
  assert(good.ok);
  assertEquals(good.value.hooks?.Stop?.[0]?.hooks[0]?.command, "x");
  const bad = await parseConfigText("c.jsonc", '{ "hooks": { "Stop": 1 } }');
  assert(!bad.ok && JSON.stringify(bad.error).includes('\\"hooks\\": \\"Stop\\" must be a list'));
});
