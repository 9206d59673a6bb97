// Subagents kind to the server's cache (issue 41): against a fake llama-server that speaks the
// real endpoints (/props, /slots/N?action=save|restore, id_slot, timings), the real provider
// and the slot scheduler keep the parent's cached prompt through a child: with two or more
// slots the child runs on its own slot, with one the parent's slot is saved and restored, or
// harness says once that it will be rebuilt. Children run concurrently up to the free slots
// and the rest queue. Control runs without the scheduler show the cache being lost.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type FakeLlamaSlots, startFakeLlamaSlots } from "../helpers/fake_llama_slots.ts";
import { renderPrompt } from "../helpers/prompt_cache.ts";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import {
  llamaSlotActions,
  probeSlotLayout,
  slotRequestFields,
} from "../../src/providers/server_slots.ts";
import { SlotScheduler } from "../../src/providers/slot_scheduler.ts";
import type { Message } from "../../src/messages.ts";

const PARENT_SYSTEM = `You are the parent. ${"Project notes. ".repeat(200)}`;
const CHILD_SYSTEM = `You are a reviewer. ${"Review rules. ".repeat(150)}`;

function complete(server: FakeLlamaSlots, messages: Message[], slot?: number) {
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    ...(slot === undefined ? {} : { extraBody: slotRequestFields(slot) }),
  });
  return provider.complete({ messages, tools: [] });
}

async function scheduler(server: FakeLlamaSlots, notes: string[] = []): Promise<SlotScheduler> {
  return new SlotScheduler({
    layout: await probeSlotLayout({ baseUrl: server.baseUrl }),
    actions: llamaSlotActions({ baseUrl: server.baseUrl }),
    saveName: "harness-test.bin",
    onNote: (note) => notes.push(note),
  });
}

/** A child's whole run: one request on the slot its lease names (or wherever, without one). */
async function runChild(server: FakeLlamaSlots, slots: SlotScheduler | undefined, task: string) {
  const lease = await slots?.acquire();
  try {
    await complete(server, [
      { kind: "system", content: CHILD_SYSTEM },
      { kind: "user", content: task },
    ], lease?.slot);
  } finally {
    await lease?.release();
  }
}

/**
 * The parent's turn, a child, then the parent's next turn; returns how many tokens the next
 * turn processed beyond what it added.
 */
async function parentAfterChild(
  server: FakeLlamaSlots,
  slots: SlotScheduler | undefined,
): Promise<number> {
  const parent = slots?.parentSlot;
  const first: Message[] = [
    { kind: "system", content: PARENT_SYSTEM },
    { kind: "user", content: "Review src/ with the reviewer." },
  ];
  const answer = await complete(server, first, parent);
  await runChild(server, slots, "Review src/app.ts.");
  const next: Message[] = [
    ...first,
    { kind: "assistant", content: answer.text, data: {} },
    { kind: "user", content: "The reviewer found nothing. Summarise." },
  ];
  const turn = await complete(server, next, parent);
  const before = renderPrompt({
    messages: [
      { role: "system", content: PARENT_SYSTEM },
      { role: "user", content: "Review src/ with the reviewer." },
    ],
  }) + answer.text;
  const added = renderPrompt({
    messages: [
      { role: "system", content: PARENT_SYSTEM },
      { role: "user", content: "Review src/ with the reviewer." },
      { role: "assistant", content: answer.text },
      { role: "user", content: "The reviewer found nothing. Summarise." },
    ],
  }).length - before.length;
  const usage = turn.usage!;
  return usage.promptTokens - (usage.reusedTokens ?? 0) - added;
}

Deno.test("SlotScheduler runs a child on its own slot when the server has two", async () => {
  await using server = startFakeLlamaSlots({ slots: 2 });
  const extra = await parentAfterChild(server, await scheduler(server));
  assert(extra <= 64, `the parent processed ${extra} tokens more than it added`);
  assertEquals(server.requests.map((r) => r.slot), [0, 1, 0]);
});

Deno.test("SlotScheduler saves and restores the parent's slot when the server has one", async () => {
  await using server = startFakeLlamaSlots({ slots: 1, savePath: true });
  const notes: string[] = [];
  const extra = await parentAfterChild(server, await scheduler(server, notes));
  assert(extra <= 64, `the parent processed ${extra} tokens more than it added`);
  assertEquals(server.actions, ["save 0 harness-test.bin", "restore 0 harness-test.bin"]);
  assertEquals(notes, []);
});

Deno.test("without the scheduler a child on a one-slot server evicts the parent's cache", async () => {
  await using server = startFakeLlamaSlots({ slots: 1, savePath: true });
  const extra = await parentAfterChild(server, undefined);
  assert(extra > PARENT_SYSTEM.length, `the parent reprocessed only ${extra} tokens`);
});

Deno.test("SlotScheduler says once that one slot without a save path rebuilds the cache", async () => {
  await using server = startFakeLlamaSlots({ slots: 1 });
  const notes: string[] = [];
  const slots = await scheduler(server, notes);
  await parentAfterChild(server, slots);
  await runChild(server, slots, "Again.");
  assertEquals(notes.length, 1, notes.join("\n"));
  assert(notes[0]!.includes("--slot-save-path"), notes[0]);
  assertEquals(server.actions, []);
});

Deno.test("SlotScheduler runs children at once up to the free slots and queues the rest", async () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const started: string[] = [];
  await using server = startFakeLlamaSlots({
    slots: 4,
    hold: (body) => {
      started.push(JSON.stringify(body.messages?.at(-1)));
      return gate;
    },
  });
  const slots = await scheduler(server);
  assertEquals(slots.capacity, 3);
  const children = Array.from({ length: 6 }, (_, i) => runChild(server, slots, `Task ${i}.`));
  while (started.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(server.requests.length, 3);
  open();
  await Promise.all(children);
  assertEquals(server.requests.length, 6);
  // The fourth waited for a lease, not for the server: the server never saw four at once.
  assert(
    server.requests.every((r) => r.slot !== 0 && r.running <= 3),
    JSON.stringify(server.requests),
  );
});

Deno.test("SlotScheduler.acquire() resolves undefined for a child stopped while it waits", async () => {
  await using server = startFakeLlamaSlots({ slots: 2 });
  const slots = await scheduler(server);
  const first = await slots.acquire();
  const stop = new AbortController();
  const waiting = slots.acquire(stop.signal);
  stop.abort();
  assertEquals(await waiting, undefined);
  await first!.release();
  const next = await slots.acquire();
  assertEquals(next?.slot, 1);
  await next!.release();
});

Deno.test("SlotScheduler says nothing and runs everything at once on other servers", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("not found", { status: 404 }),
  );
  try {
    const notes: string[] = [];
    const layout = await probeSlotLayout({ baseUrl: `http://127.0.0.1:${server.addr.port}/v1` });
    assertEquals(layout, { kind: "unmanaged" });
    const slots = new SlotScheduler({ layout, saveName: "x", onNote: (n) => notes.push(n) });
    const leases = await Promise.all(Array.from({ length: 8 }, () => slots.acquire()));
    assert(leases.every((lease) => lease !== undefined && lease.slot === undefined));
    await Promise.all(leases.map((lease) => lease!.release()));
    assertEquals([slots.parentSlot, notes], [undefined, []]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("SlotScheduler keeps the parent's slot out of children's reach wherever it is", async () => {
  await using server = startFakeLlamaSlots({ slots: 3 });
  const slots = new SlotScheduler({
    layout: await probeSlotLayout({ baseUrl: server.baseUrl }),
    saveName: "x",
    parentSlot: 4, // 4 mod 3
  });
  assertEquals(slots.parentSlot, 1);
  const leases = await Promise.all([slots.acquire(), slots.acquire()]);
  assertEquals(leases.map((lease) => lease?.slot).sort(), [0, 2]);
  await Promise.all(leases.map((lease) => lease!.release()));
});
