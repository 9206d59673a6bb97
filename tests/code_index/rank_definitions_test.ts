// The graph ranking on hand-built graphs whose order is known.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { pageRank, rankDefinitions } from "../../src/code_index/rank_definitions.ts";
import type { StoredDefinition, StoredReference } from "../../src/code_index/graph_store.ts";

function def(path: string, name: string, line = 1): StoredDefinition {
  return { path, name, kind: "function", line, endLine: line, signature: `function ${name}()` };
}

function ref(path: string, name: string, line = 1): StoredReference {
  return { path, name, line, text: `${name}()` };
}

Deno.test("pageRank() ranks a node pointed at by many above the ones pointing", () => {
  const rank = pageRank(
    ["a", "b", "c", "d"],
    [["a", "d", 1], ["b", "d", 1], ["c", "d", 1]],
    new Map(),
  );
  const order = [...rank.entries()].sort((x, y) => y[1] - x[1]).map(([n]) => n);
  assertEquals(order[0], "d");
  const total = [...rank.values()].reduce((s, v) => s + v, 0);
  assert(Math.abs(total - 1) < 1e-9, `ranks sum to ${total}`);
});

Deno.test("pageRank() personalised to a node lifts what that node points at", () => {
  const edges: Array<[string, string, number]> = [["a", "x", 1], ["b", "y", 1]];
  const towardsA = pageRank(["a", "b", "x", "y"], edges, new Map([["a", 1]]));
  assert(towardsA.get("x")! > towardsA.get("y")!);
  const towardsB = pageRank(["a", "b", "x", "y"], edges, new Map([["b", 1]]));
  assert(towardsB.get("y")! > towardsB.get("x")!);
});

Deno.test("rankDefinitions() puts the most used definition first", () => {
  const definitions = [
    def("core.ts", "parseConfig"),
    def("util.ts", "helperThing"),
    def("main.ts", "main"),
  ];
  const references = [
    ref("main.ts", "parseConfig"),
    ref("cli.ts", "parseConfig"),
    ref("server.ts", "parseConfig"),
    ref("main.ts", "helperThing"),
  ];
  const ranked = rankDefinitions(definitions, references).map((d) => d.name);
  assertEquals(ranked, ["parseConfig", "helperThing", "main"]);
});

Deno.test("rankDefinitions() follows the conversation's files and names", () => {
  const definitions = [def("a.ts", "alphaValue"), def("b.ts", "betaValue")];
  const references = [
    ref("x.ts", "alphaValue"),
    ref("y.ts", "alphaValue"),
    ref("focus.ts", "betaValue"),
  ];
  assertEquals(rankDefinitions(definitions, references)[0]!.name, "alphaValue");
  const byFile = rankDefinitions(definitions, references, { files: new Set(["focus.ts"]) });
  assertEquals(byFile[0]!.name, "betaValue");
  const byName = rankDefinitions(definitions, references, { names: new Set(["betaValue"]) });
  assertEquals(byName[0]!.name, "betaValue");
});

Deno.test("rankDefinitions() weighs standard-library method names and test files low", () => {
  const definitions = [
    def("stack.ts", "push"),
    def("store.ts", "saveRecord"),
    def("tests/x_test.ts", "makeFixtureThing"),
  ];
  const references = [
    ...Array.from({ length: 20 }, (_, i) => ref(`f${i}.ts`, "push")),
    ref("api.ts", "saveRecord"),
    ref("a.ts", "makeFixtureThing"),
  ];
  assertEquals(rankDefinitions(definitions, references)[0]!.name, "saveRecord");
});

Deno.test("conversationFocus() finds named identifiers, files, and names sharing keywords", async () => {
  const { conversationFocus } = await import("../../src/code_index/conversation_focus.ts");
  const focus = conversationFocus(
    "Why does the client wait so long before retrying? See src/client.ts and the pagination code.",
    ["retryRequest", "calculateRetryDelay", "client", "parseBody"],
    ["src/client.ts", "src/core/pagination.ts", "src/other.ts"],
  );
  assertEquals([...focus.names], ["client"]);
  assertEquals([...focus.related.keys()].sort(), ["calculateRetryDelay", "retryRequest"]);
  assertEquals([...focus.files].sort(), ["src/client.ts", "src/core/pagination.ts"]);
});
