// TurnCheckpoints over a real shadow repository: turns recorded only when they change files,
// undo of the last turn, rewind over several, and the user's own edits shown as conflicts.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { CheckpointRepo } from "../../src/checkpoints/checkpoint_repo.ts";
import {
  type CheckpointEvent,
  type RestoreOutcome,
  type RestorePlan,
  TurnCheckpoints,
} from "../../src/checkpoints/turn_checkpoints.ts";

async function setup(files: Record<string, string>) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_turns_" }));
  const workspace = join(root, "work");
  Deno.mkdirSync(workspace);
  const write = (more: Record<string, string>) => {
    for (const [path, text] of Object.entries(more)) {
      Deno.mkdirSync(join(workspace, path, ".."), { recursive: true });
      Deno.writeTextFileSync(join(workspace, path), text);
    }
  };
  write(files);
  const events: CheckpointEvent[] = [];
  const collected: string[] = [];
  let opened: CheckpointRepo | undefined;
  const checkpoints = new TurnCheckpoints({
    open: async () =>
      opened = await CheckpointRepo.open({
        git: "git",
        workspace,
        gitDir: join(root, "data"),
        owner: "s",
        maxFileBytes: 100,
      }),
    maxFileBytes: 100,
  });
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(join(workspace, path));
    } catch {
      return undefined;
    }
  };
  return {
    workspace,
    write,
    read,
    events,
    /** The warnings so far, as the conversation takes them. */
    get warnings(): string[] {
      collected.push(...checkpoints.takeWarnings());
      return collected;
    },
    /** Applies a plan and keeps its event, as the conversation logs it. */
    async apply(plan: RestorePlan, overwrite: boolean): Promise<RestoreOutcome> {
      const outcome = await checkpoints.apply(plan, overwrite);
      if ("event" in outcome) events.push(outcome.event);
      return outcome;
    },
    checkpoints,
    /** Waits for the snapshots started so far (they run one at a time). */
    async settled(): Promise<void> {
      await new Promise((done) => setTimeout(done, 0)); // a started snapshot reaches the queue
      await opened?.present("HEAD", []);
    },
    async [Symbol.asyncDispose]() {
      await checkpoints.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** One turn: begin, a change before which the snapshot is taken, end. */
async function turn(
  t: Awaited<ReturnType<typeof setup>>,
  messageCount: number,
  change?: () => void,
) {
  t.checkpoints.begin(messageCount, `prompt ${messageCount}`);
  if (change) {
    await t.checkpoints.beforeChange();
    change();
  }
  const record = await t.checkpoints.end();
  if (record) t.events.push({ type: "checkpoint", checkpoint: record });
  return record;
}

function isPlan(plan: RestorePlan | { error: string }): plan is RestorePlan {
  return !("error" in plan);
}

Deno.test("TurnCheckpoints records only turns that changed files", async () => {
  await using t = await setup({ "a.txt": "1" });
  assertEquals(await turn(t, 1), undefined, "no call that may change files");
  assertEquals(await turn(t, 3, () => {}), undefined, "a call that changed nothing");
  const record = await turn(t, 5, () => t.write({ "a.txt": "2", "b.txt": "new" }));
  assertEquals(record?.files, ["a.txt", "b.txt"]);
  assertEquals(record?.prompt, "prompt 5");
  assertEquals(t.events.map((e) => e.type), ["checkpoint"]);
});

Deno.test("TurnCheckpoints: /undo restores the last turn's files and says which", async () => {
  await using t = await setup({ "a.txt": "1" });
  await turn(t, 1, () => t.write({ "a.txt": "2" }));
  await turn(t, 3, () => t.write({ "a.txt": "3", "c.txt": "c" }));
  const plan = await t.checkpoints.plan("last");
  assert(isPlan(plan));
  assertEquals(plan.paths, ["a.txt", "c.txt"]);
  assertEquals(plan.conflicts, []);
  const outcome = await t.apply(plan, false);
  assert("event" in outcome);
  assertEquals([outcome.event.restored, outcome.event.kept], [["a.txt", "c.txt"], []]);
  assertEquals(t.read("a.txt"), "2");
  assertEquals(t.read("c.txt"), undefined);
  // The next /undo goes one turn further back.
  const next = await t.checkpoints.plan("last");
  assert(isPlan(next));
  await t.apply(next, false);
  assertEquals(t.read("a.txt"), "1");
  assert("error" in await t.checkpoints.plan("last"));
  assertEquals(t.events.map((e) => e.type), [
    "checkpoint",
    "checkpoint",
    "files_restored",
    "files_restored",
  ]);
});

Deno.test("TurnCheckpoints: the user's edit after the turn is a conflict, kept unless overwritten", async () => {
  await using t = await setup({ "a.txt": "1", "b.txt": "1" });
  await turn(t, 1, () => t.write({ "a.txt": "model", "b.txt": "model" }));
  t.write({ "a.txt": "mine" }); // the user edits after the turn
  const plan = await t.checkpoints.plan("last");
  assert(isPlan(plan));
  assertEquals(plan.conflicts, ["a.txt"]);
  const outcome = await t.apply(plan, false);
  assert("event" in outcome);
  assertEquals([outcome.event.restored, outcome.event.kept], [["b.txt"], ["a.txt"]]);
  assertEquals(t.read("a.txt"), "mine");
  assertEquals(t.read("b.txt"), "1");
});

Deno.test("TurnCheckpoints: overwrite restores the conflicts too, and the user's text is saved", async () => {
  await using t = await setup({ "a.txt": "1" });
  await turn(t, 1, () => t.write({ "a.txt": "model" }));
  t.write({ "a.txt": "mine" });
  const plan = await t.checkpoints.plan("last");
  assert(isPlan(plan));
  await t.apply(plan, true);
  assertEquals(t.read("a.txt"), "1");
  const restoredEvent = t.events.find((e) => e.type === "files_restored");
  assert(restoredEvent?.type === "files_restored");
  const show = await new Deno.Command("git", {
    args: ["show", `${restoredEvent.saved}:a.txt`],
    env: { GIT_DIR: join(t.workspace, "..", "data") },
    stdout: "piped",
  }).output();
  assertEquals(new TextDecoder().decode(show.stdout), "mine");
});

Deno.test("TurnCheckpoints: a rewind over turns flags edits the user made between them", async () => {
  await using t = await setup({ "a.txt": "1", "b.txt": "1", "c.txt": "1" });
  await turn(t, 1, () => t.write({ "a.txt": "t1", "b.txt": "t1" }));
  t.write({ "b.txt": "mine" }); // between the turns
  await turn(t, 3, () => t.write({ "c.txt": "t2" }));
  const plan = await t.checkpoints.plan(1);
  assert(isPlan(plan));
  assertEquals(plan.turns.map((turn) => turn.messageCount), [3, 1]);
  assertEquals(plan.paths, ["a.txt", "b.txt", "c.txt"]);
  assertEquals(plan.conflicts, ["b.txt"]);
  await t.apply(plan, false);
  assertEquals([t.read("a.txt"), t.read("b.txt"), t.read("c.txt")], ["1", "mine", "1"]);
  t.checkpoints.forget(1);
  assertEquals(t.checkpoints.records(), []);
});

Deno.test("TurnCheckpoints: the user's edit before a turn's first change is not the turn's", async () => {
  await using t = await setup({ "a.txt": "1", "b.txt": "1" });
  await turn(t, 1, () => t.write({ "a.txt": "t1" }));
  // The next turn snapshots at once, while the model works; the user edits after that.
  t.checkpoints.begin(3, "prompt 3");
  await t.settled();
  t.write({ "b.txt": "mine" });
  await t.checkpoints.beforeChange();
  t.write({ "a.txt": "t2" });
  t.checkpoints.changed();
  const record = await t.checkpoints.end();
  assertEquals(record?.files, ["a.txt"]);
  const plan = await t.checkpoints.plan("last");
  assert(isPlan(plan));
  await t.apply(plan, false);
  assertEquals([t.read("a.txt"), t.read("b.txt")], ["t1", "mine"]);
});

Deno.test("TurnCheckpoints: the snapshot taken while the model answers ends the turn", async () => {
  await using t = await setup({ "a.txt": "1", "b.txt": "1" });
  t.checkpoints.begin(1, "prompt 1");
  await t.checkpoints.beforeChange();
  t.write({ "a.txt": "model" });
  t.checkpoints.changed();
  t.checkpoints.settle(); // the model is asked again
  await t.settled();
  t.write({ "a.txt": "mine", "b.txt": "mine" }); // the user, while the model answers
  const record = await t.checkpoints.end();
  assertEquals(record?.files, ["a.txt"], "the user's b.txt is not the turn's");
  const plan = await t.checkpoints.plan("last");
  assert(isPlan(plan));
  assertEquals(plan.conflicts, ["a.txt"]);
  await t.apply(plan, false);
  assertEquals([t.read("a.txt"), t.read("b.txt")], ["mine", "mine"]);
  // A call after the model's answer makes the turn's end take a new snapshot.
  t.checkpoints.begin(3, "prompt 3");
  await t.checkpoints.beforeChange();
  t.checkpoints.changed();
  t.checkpoints.settle();
  await t.checkpoints.beforeChange();
  t.write({ "b.txt": "model" });
  t.checkpoints.changed();
  assertEquals((await t.checkpoints.end())?.files, ["b.txt"]);
});

Deno.test("TurnCheckpoints warns about a file over the limit once and keeps going", async () => {
  await using t = await setup({ "a.txt": "1" });
  await turn(t, 1, () => t.write({ "big.log": "x".repeat(500), "a.txt": "2" }));
  await turn(t, 3, () => t.write({ "big.log": "y".repeat(500), "a.txt": "3" }));
  assertEquals(t.warnings.length, 1);
  assert(
    t.warnings[0]!.includes('"big.log"') && t.warnings[0]!.includes("checkpoint_max_file_size"),
  );
  assertEquals(t.checkpoints.records().map((r) => r.files), [["a.txt"], ["a.txt"]]);
});

Deno.test("TurnCheckpoints without git says so once and never fails a turn", async () => {
  const root = await Deno.makeTempDir();
  const checkpoints = new TurnCheckpoints({
    open: () =>
      CheckpointRepo.open({
        git: join(root, "no-such-git"),
        workspace: root,
        gitDir: join(root, "data"),
        owner: "s",
        maxFileBytes: 100,
      }),
    maxFileBytes: 100,
  });
  checkpoints.begin(1, "p");
  await checkpoints.beforeChange();
  assertEquals(await checkpoints.end(), undefined);
  checkpoints.begin(3, "p");
  await checkpoints.beforeChange();
  assertEquals(checkpoints.takeWarnings().length, 1);
  assert(checkpoints.off !== undefined);
  const plan = await checkpoints.plan("last");
  assert("error" in plan && plan.error.startsWith("Checkpoints are off"));
  await checkpoints.close();
  await Deno.remove(root, { recursive: true });
});
