// Test helper for index_workspace_test.ts: indexes a workspace into a database file, printing
// a line per stored file and pausing between files, so the test can SIGKILL it mid-run.

import { GraphStore } from "../../src/code_index/graph_store.ts";
import { indexWorkspace } from "../../src/code_index/index_workspace.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";

const [workspace, db] = Deno.args as [string, string];
const parsed = parseGrantFlags(["--allow-read=."], { cwd: workspace });
if (!parsed.ok) throw new Error("grants");
const store = GraphStore.open(db);
let stored = 0;
const putFile = store.putFile.bind(store);
store.putFile = (file, grammar, symbols) => {
  putFile(file, grammar, symbols);
  stored++;
  console.log(`stored ${stored}`);
  const until = Date.now() + 5;
  while (Date.now() < until) { /* slow down so the kill lands mid-run */ }
};
await indexWorkspace({ workspace, grants: parsed.value.grants, store });
