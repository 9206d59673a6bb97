// The typed handles of the built-in tools: each names a tool harness ships (a file of
// plugins/, or a code tool), and a handle matches only the built-in tool of its name.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as builtins from "../../src/tools/builtin_tools.ts";
import { CODE_TOOL_INFOS } from "../../src/code_index/code_tool_schemas.ts";
import type { ToolInfo } from "../../src/tools/tool_entry.ts";

const PLUGINS = fileURLToPath(new URL("../../plugins/", import.meta.url));

/** Every handle the module exports, lists included. */
function handles(): builtins.ToolHandle[] {
  return Object.values(builtins).flatMap((value) =>
    Array.isArray(value) ? value : typeof value === "object" && "name" in value ? [value] : []
  );
}

Deno.test("each tool handle names a built-in plugin file or a code tool", () => {
  const code = new Set(CODE_TOOL_INFOS.map((info) => info.name));
  const all = handles();
  assert(all.length >= 14, `only ${all.length} handles found`);
  for (const handle of all) {
    const shipped = existsSync(`${PLUGINS}${handle.name}.ts`) || code.has(handle.name);
    assert(shipped, `handle "${handle.name}" names no file of plugins/ and no code tool`);
  }
});

Deno.test("isTool() matches only the built-in tool of a handle's name", () => {
  const info: ToolInfo = {
    name: "read_file",
    description: "",
    risk: "medium",
    parameters: {},
    source: "plugins/read_file.ts",
    origin: "builtin",
  };
  assertEquals(isToolOf(info), [true, true, false]);
  // A user's plugin of the same name is not harness's read_file.
  assertEquals(isToolOf({ ...info, origin: "user" }), [false, false, false]);
  assertEquals(builtins.isTool(undefined, builtins.READ_FILE), false);
});

function isToolOf(info: ToolInfo): boolean[] {
  return [
    builtins.isTool(info, builtins.READ_FILE),
    builtins.isTool(info, builtins.FILE_TOOLS),
    builtins.isTool(info, builtins.FILE_WRITE_TOOLS),
  ];
}
