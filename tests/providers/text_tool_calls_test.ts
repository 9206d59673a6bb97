// Tests for parsing tool-call markup out of answer text, and for streaming it split at every
// possible point. Test strings are written from the formats' descriptions.

import { deepStrictEqual, ok } from "node:assert/strict";
import type { ToolSchema } from "../../src/messages.ts";
import {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallParse,
  TextToolCallStream,
} from "../../src/providers/text_tool_calls.ts";
import { repairArguments } from "../../src/agent/repair_arguments.ts";

// JSR's std is unreachable here; node:assert works in Deno.
function assertEq<T>(actual: T, expected: T, message?: string): void {
  deepStrictEqual(actual, expected, message);
}

const TOOLS: ToolSchema[] = [
  {
    name: "get_weather",
    description: "",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
    },
  },
  {
    name: "read_file",
    description: "",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  {
    name: "write_file",
    description: "",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
    },
  },
  {
    name: "set_flag",
    description: "",
    parameters: {
      type: "object",
      properties: {
        enabled: { type: "boolean" },
        count: { type: "number" },
        tags: { type: "array", items: { type: "string" } },
        options: { type: "object" },
        label: { type: "string" },
      },
    },
  },
];

interface Case {
  name: string;
  input: string;
  text: string;
  reasoning?: string;
  calls?: [string, Record<string, unknown>][];
  /** The stream cannot show this case exactly (text before an unopened </think>). */
  streamDiffers?: boolean;
  /** The visible text quotes markup on purpose. */
  quotes?: boolean;
}

const FENCE = "```";

const CASES: Case[] = [
  {
    name: "Hermes, one call",
    input:
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 3}}\n</tool_call>',
    text: "",
    calls: [["get_weather", { city: "Tokyo", days: 3 }]],
  },
  {
    name: "Hermes, two calls after text",
    input: "Let me check the weather in both cities.\n\n" +
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    text: "Let me check the weather in both cities.",
    calls: [["get_weather", { city: "Tokyo" }], ["get_weather", { city: "Paris" }]],
  },
  {
    name: "Qwen 3 with a think block",
    input: "<think>\nThe user wants a file.\n</think>\n\n" +
      '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/main.ts"}}\n</tool_call>',
    text: "",
    reasoning: "The user wants a file.",
    calls: [["read_file", { path: "src/main.ts" }]],
  },
  {
    name: "Hermes, unclosed at the end, arguments as a JSON string",
    input: '<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a.txt\\"}"}',
    text: "",
    calls: [["read_file", { path: "a.txt" }]],
  },
  {
    name: "Qwen3-Coder XML with markup-like content",
    input: "I'll write the file.\n<tool_call>\n<function=write_file>\n" +
      "<parameter=path>\nnotes/todo.md\n</parameter>\n" +
      "<parameter=content>\n# Todo\n- <b>x</b> & 1 < 2\n</parameter>\n</function>\n</tool_call>",
    text: "I'll write the file.",
    calls: [["write_file", { path: "notes/todo.md", content: "# Todo\n- <b>x</b> & 1 < 2" }]],
  },
  {
    name: "Qwen3-Coder XML coerced to schema types",
    input: "<tool_call>\n<function=set_flag>\n<parameter=enabled>\ntrue\n</parameter>\n" +
      '<parameter=count>\n2.5\n</parameter>\n<parameter=tags>\n["a", "b"]\n</parameter>\n' +
      "<parameter=options>\n{'deep': True}\n</parameter>\n<parameter=label>\n42\n</parameter>\n" +
      "</function>\n</tool_call>",
    text: "",
    calls: [["set_flag", {
      enabled: true,
      count: 2.5,
      tags: ["a", "b"],
      options: { deep: true },
      label: "42",
    }]],
  },
  {
    name: "Qwen3-Coder XML without the tool_call wrapper",
    input:
      "Checking.\n<function=get_weather><parameter=city>Oslo</parameter><parameter=days>4</parameter></function>",
    text: "Checking.",
    calls: [["get_weather", { city: "Oslo", days: 4 }]],
  },
  {
    name: "Llama 3.1 JSON function tag",
    input: '<function=read_file>{"path": "x.md"}</function>',
    text: "",
    calls: [["read_file", { path: "x.md" }]],
  },
  {
    name: "Llama JSON as the whole answer",
    input: '{"name": "get_weather", "parameters": {"city": "Lima"}}',
    text: "",
    calls: [["get_weather", { city: "Lima" }]],
  },
  {
    name: "Llama JSON with python_tag, two calls and eom_id",
    input: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Lima"}}; ' +
      '{"name": "read_file", "parameters": {"path": "x"}}<|eom_id|>',
    text: "",
    calls: [["get_weather", { city: "Lima" }], ["read_file", { path: "x" }]],
  },
  {
    name: "Llama 3.2 JSON with a type key, two calls joined by ;",
    input: ' {"type": "function", "name": "read_file", "parameters": {"path": "README.md"}};' +
      '{"name": "get_weather", "parameters": {"city": "Rome"}}\n',
    text: "",
    calls: [["read_file", { path: "README.md" }], ["get_weather", { city: "Rome" }]],
  },
  {
    name: "Llama JSON after prose on the same line",
    input: 'Here: {"name": "read_file", "parameters": {"path": "x"}}',
    text: "Here:",
    calls: [["read_file", { path: "x" }]],
  },
  {
    name: "pythonic list",
    input: "[get_weather(city=\"Tokyo\", days=2), read_file(path='a b.txt')]",
    text: "",
    calls: [["get_weather", { city: "Tokyo", days: 2 }], ["read_file", { path: "a b.txt" }]],
  },
  {
    name: "Llama 4 pythonic in python_start",
    input: 'Sure.<|python_start|>[get_weather(city="Kyoto")]<|python_end|>',
    text: "Sure.",
    calls: [["get_weather", { city: "Kyoto" }]],
  },
  {
    name: "Mistral JSON list",
    input: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Nice"}}, ' +
      '{"name": "read_file", "arguments": {"path": "b"}, "id": "abcdefghi"}]',
    text: "",
    calls: [["get_weather", { city: "Nice" }], ["read_file", { path: "b" }]],
  },
  {
    name: "Mistral name[ARGS] calls after text",
    input:
      'Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Lyon"}[TOOL_CALLS]read_file[ARGS]{"path": "c"}',
    text: "Sure.",
    calls: [["get_weather", { city: "Lyon" }], ["read_file", { path: "c" }]],
  },
  {
    name: "Mistral with CALL_ID",
    input: '[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Bern"}</s>',
    text: "",
    calls: [["get_weather", { city: "Bern" }]],
  },
  {
    name: "Mistral name and object without [ARGS]",
    input: '[TOOL_CALLS]read_file{"path": "z"}',
    text: "",
    calls: [["read_file", { path: "z" }]],
  },
  {
    name: "a JSON list of call objects as the whole answer",
    input: '[{"name": "read_file", "arguments": {"path": "l"}}]',
    text: "",
    calls: [["read_file", { path: "l" }]],
  },
  {
    name: "bare JSON after an unopened </think>",
    input: 'Plan.</think>\n{"name": "read_file", "parameters": {"path": "a"}}',
    text: "",
    reasoning: "Plan.",
    calls: [["read_file", { path: "a" }]],
    streamDiffers: true,
  },
  {
    name: "DeepSeek V3, two calls after text",
    input:
      "Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n" +
      `${FENCE}json\n{"city": "Seoul"}\n${FENCE}<｜tool▁call▁end｜>\n` +
      "<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n" +
      `${FENCE}json\n{"path": "d"}\n${FENCE}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
    text: "Let me look.",
    calls: [["get_weather", { city: "Seoul" }], ["read_file", { path: "d" }]],
  },
  {
    name: "DeepSeek V3.1",
    input: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>" +
      '{"city": "Hanoi"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    text: "",
    calls: [["get_weather", { city: "Hanoi" }]],
  },
  {
    name: "DeepSeek R1 with think",
    input: "<think>Need weather.</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function" +
      `<｜tool▁sep｜>get_weather\n${FENCE}json\n{"city": "Seoul"}\n${FENCE}<｜tool▁call▁end｜>` +
      "<｜tool▁calls▁end｜>",
    text: "",
    reasoning: "Need weather.",
    calls: [["get_weather", { city: "Seoul" }]],
  },
  {
    name: "gpt-oss harmony call",
    input: "<|channel|>analysis<|message|>User wants weather. Call the tool.<|end|>" +
      "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json" +
      '<|message|>{"city": "Cairo"}<|call|>',
    text: "",
    reasoning: "User wants weather. Call the tool.",
    calls: [["get_weather", { city: "Cairo" }]],
  },
  {
    name: "gpt-oss harmony with the recipient in the role",
    input: "<|start|>assistant to=functions.read_file<|channel|>commentary json" +
      '<|message|>{"path":"q"}<|call|>',
    text: "",
    calls: [["read_file", { path: "q" }]],
  },
  {
    name: "gpt-oss harmony final answer",
    input: "<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final" +
      "<|message|>It is sunny.<|return|>",
    text: "It is sunny.",
    reasoning: "Simple.",
  },
  {
    name: "LM Studio tool request",
    input:
      'Reading.\n[TOOL_REQUEST]\n{"name": "read_file", "arguments": {"path": "e"}}\n[END_TOOL_REQUEST]',
    text: "Reading.",
    calls: [["read_file", { path: "e" }]],
  },
  {
    name: "think block before an answer",
    input: "<think>Plan: answer directly.</think>The answer is 4.",
    text: "The answer is 4.",
    reasoning: "Plan: answer directly.",
  },
  {
    name: "a quoted call in a fence, then a real call and more text",
    input:
      `Format:\n${FENCE}\n<tool_call>{"name": "read_file", "arguments": {}}</tool_call>\n${FENCE}\n` +
      '<tool_call>{"name": "read_file", "arguments": {"path": "f"}}</tool_call>\nDone.',
    text:
      `Format:\n${FENCE}\n<tool_call>{"name": "read_file", "arguments": {}}</tool_call>\n${FENCE}\n\nDone.`,
    calls: [["read_file", { path: "f" }]],
    quotes: true,
  },
  {
    name: "a call inside a think block (reasoning, not a call)",
    input:
      '<think>I could use <tool_call>{"name": "read_file", "arguments": {}}</tool_call></think>No need.',
    text: "No need.",
    reasoning: 'I could use <tool_call>{"name": "read_file", "arguments": {}}</tool_call>',
  },
  {
    name: "Hermes with Python-style single quotes",
    input: "<tool_call>{'name': 'read_file', 'arguments': {'path': 'notes.txt'}}</tool_call>",
    text: "",
    calls: [["read_file", { path: "notes.txt" }]],
  },
  {
    name: "Hermes with trailing commas",
    input: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 3,},}\n' +
      "</tool_call>",
    text: "",
    calls: [["get_weather", { city: "Tokyo", days: 3 }]],
  },
  {
    name: "Hermes with Python True and None",
    input:
      "<tool_call>{'name': 'set_flag', 'arguments': {'enabled': True, 'label': None}}</tool_call>",
    text: "",
    calls: [["set_flag", { enabled: true, label: null }]],
  },
  {
    name: "Hermes missing the outer closing brace",
    input: '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}</tool_call> Done.',
    text: "Done.",
    calls: [["read_file", { path: "a.txt" }]],
  },
  {
    name: "Hermes with </tool_call> inside a string argument",
    input: '<tool_call>{"name": "write_file", "arguments": {"path": "doc.md", "content": ' +
      '"Write <tool_call>{\\"name\\": \\"x\\"}</tool_call> to call."}}</tool_call>\nDone.',
    text: "Done.",
    calls: [["write_file", {
      path: "doc.md",
      content: 'Write <tool_call>{"name": "x"}</tool_call> to call.',
    }]],
  },
  {
    name: "Hermes with </tool_call> inside a single-quoted string",
    input: "<tool_call>{'name': 'write_file', 'arguments': " +
      "{'path': 'b', 'content': 'it\\'s \"</tool_call>\" here'}}</tool_call>",
    text: "",
    calls: [["write_file", { path: "b", content: 'it\'s "</tool_call>" here' }]],
  },
  {
    name: "Hermes, two calls in one block, the first quoting the closing tag",
    input: '<tool_call>\n{"name": "write_file", "arguments": {"path": "c", "content": ' +
      '"</tool_call>"}}\n{"name": "read_file", "arguments": {"path": "c"}}\n</tool_call>',
    text: "",
    calls: [["write_file", { path: "c", content: "</tool_call>" }], ["read_file", { path: "c" }]],
  },
  {
    name: "Hermes unclosed, followed by prose",
    input: '<tool_call>{"name": "read_file", "arguments": {"path": "a"}} Let me know.',
    text: "Let me know.",
    calls: [["read_file", { path: "a" }]],
  },
  {
    name: "LM Studio with its closing tag inside a string",
    input: '[TOOL_REQUEST]{"name": "write_file", "arguments": {"path": "d", "content": ' +
      '"[END_TOOL_REQUEST]"}}[END_TOOL_REQUEST]',
    text: "",
    calls: [["write_file", { path: "d", content: "[END_TOOL_REQUEST]" }]],
  },
  {
    name: "</think> without <think>",
    input: "Plan quickly.</think>\n\nThe answer is 4.",
    text: "The answer is 4.",
    reasoning: "Plan quickly.",
    streamDiffers: true,
  },
];

/** Inputs that must come back unchanged, with no calls. */
const TEXT_ONLY: [string, string][] = [
  [
    "a fenced code block quoting Hermes",
    `Use this format:\n${FENCE}\n<tool_call>\n{"name": "read_file", "arguments": {"path": "x"}}\n` +
    `</tool_call>\n${FENCE}\nThat is all.`,
  ],
  [
    "a tilde fence quoting Mistral",
    'Example:\n~~~text\n[TOOL_CALLS]read_file[ARGS]{"path": "x"}\n~~~\n',
  ],
  [
    "a fence quoting bare JSON at the start",
    `${FENCE}json\n{"name": "read_file", "parameters": {"path": "x"}}\n${FENCE}`,
  ],
  [
    "inline code quoting Hermes",
    'Write `<tool_call>{"name": "read_file", "arguments": {}}</tool_call>` to call a tool.',
  ],
  ["an unknown tool", '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>'],
  ["an unknown pythonic tool", "[launch_rockets(count=3)]"],
  ["brackets and tags in prose", "Arrays like [1, 2] and {a: 1} and <b>bold</b> are fine."],
  ["bare JSON that is not a call", '{"result": 42}'],
  ["a link and a partial marker", "[Link](http://x) and [TOOL_CALLS are mentioned <tool_"],
  ["a harmony-looking word", "<|channel|> is a token name I know."],
  ["broken JSON in a closed tool_call", "<tool_call>{not json}</tool_call> ok"],
  [
    "broken JSON naming an unknown tool",
    "<tool_call>{'name': 'delete_everything', 'arguments': {'x': 1,}</tool_call> ok",
  ],
  ["unclosed inline code", "Use `<b> tags\nthen `more` [TOOL_CALLS."],
  ["empty", ""],
];

/**
 * `<tool_call>` blocks naming an offered tool whose JSON cannot be read: they become a call
 * with the arguments as written, so the loop's argument parser tells the model what is wrong
 * (`error` says whether it does) instead of the markup becoming the answer.
 */
const BROKEN: { name: string; input: string; text: string; call: TextToolCall; error: boolean }[] =
  [
    {
      name: "two string values without a comma",
      input: '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt" "b.txt"}}</tool_call>',
      text: "",
      call: { name: "read_file", arguments: '{"path": "a.txt" "b.txt"}' },
      error: true,
    },
    {
      name: "a raw newline inside a string",
      input:
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "one\ntwo"}}' +
        "\n</tool_call>",
      text: "",
      call: { name: "write_file", arguments: '{"path": "a", "content": "one\ntwo"}' },
      error: true,
    },
    {
      name: "an unterminated string running past the closing tag",
      input: '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "abc' +
        "</tool_call>\nMore text.",
      text: "More text.",
      call: { name: "write_file", arguments: '{"path": "a", "content": "abc' },
      error: true,
    },
    {
      name: "bare keys (repaired by the loop)",
      input: '<tool_call>{name: "read_file", arguments: {path: "a.txt"}}</tool_call>',
      text: "",
      call: { name: "read_file", arguments: '{path: "a.txt"}' },
      error: false,
    },
  ];

for (const c of BROKEN) {
  Deno.test(`parseTextToolCalls() turns ${c.name} into a call that fails to parse`, () => {
    const parsed = parseTextToolCalls(c.input, TOOLS);
    assertEq(parsed, { text: c.text, reasoning: "", calls: [c.call] });
    const schema = TOOLS.find((tool) => tool.name === c.call.name)!.parameters;
    const repaired = repairArguments(c.call.arguments, schema);
    assertEq("error" in repaired, c.error, JSON.stringify(repaired));
  });

  Deno.test(`TextToolCallStream reads ${c.name} split at every point`, () => {
    const want = { text: c.text, reasoning: "", calls: [c.call.name] };
    for (const chunks of splits(c.input)) {
      const got = streamed(chunks);
      assertEq({ ...got, text: got.text.trim() }, want, JSON.stringify(chunks.slice(0, 3)));
    }
  });
}

const MARKUP = [
  "<tool_call",
  "</tool_call",
  "<function=",
  "<|",
  "[TOOL_",
  "<｜",
  "<think",
  "</think",
];

function expected(c: Case): TextToolCallParse {
  return {
    text: c.text,
    reasoning: c.reasoning ?? "",
    calls: (c.calls ?? []).map(([name, args]) => ({ name, arguments: JSON.stringify(args) })),
  };
}

function streamed(chunks: string[]): { text: string; reasoning: string; calls: string[] } {
  const stream = new TextToolCallStream(TOOLS);
  const out = { text: "", reasoning: "", calls: [] as string[] };
  const take = (pieces: ReturnType<TextToolCallStream["push"]>) => {
    for (const piece of pieces) {
      if (piece.type === "call") out.calls.push(piece.name);
      else out[piece.type] += piece.text;
    }
  };
  for (const chunk of chunks) take(stream.push(chunk));
  take(stream.end());
  return out;
}

/** Every way of cutting the text in two, and one character at a time. */
function splits(text: string): string[][] {
  const all: string[][] = [];
  for (let i = 0; i <= text.length; i++) all.push([text.slice(0, i), text.slice(i)]);
  all.push([...text]);
  return all;
}

for (const c of CASES) {
  Deno.test(`parseTextToolCalls() reads ${c.name}`, () => {
    assertEq(parseTextToolCalls(c.input, TOOLS), expected(c));
  });

  Deno.test(`TextToolCallStream reads ${c.name} split at every point`, () => {
    const whole = streamed([c.input]);
    const want = expected(c);
    assertEq(whole.calls, want.calls.map((call) => call.name));
    if (!c.streamDiffers) {
      assertEq(whole.text.trim(), want.text);
      assertEq(whole.reasoning.trim(), want.reasoning);
      for (const marker of c.quotes ? [] : MARKUP) ok(!whole.text.includes(marker), marker);
    }
    for (const chunks of splits(c.input)) {
      assertEq(streamed(chunks), whole, JSON.stringify(chunks.slice(0, 3)));
    }
  });
}

for (const [name, input] of TEXT_ONLY) {
  Deno.test(`parseTextToolCalls() leaves ${name} as text`, () => {
    assertEq(parseTextToolCalls(input, TOOLS), { text: input, reasoning: "", calls: [] });
  });

  Deno.test(`TextToolCallStream shows ${name} as text at every split`, () => {
    for (const chunks of splits(input)) {
      assertEq(streamed(chunks), { text: input, reasoning: "", calls: [] });
    }
  });
}

Deno.test("TextToolCallStream shows plain text as it arrives", () => {
  const stream = new TextToolCallStream(TOOLS);
  assertEq(stream.push("Hello wor"), [{ type: "text", text: "Hello wor" }]);
  assertEq(stream.push("ld. Next <"), [{ type: "text", text: "ld. Next " }]);
  assertEq(stream.push("b> done"), [{ type: "text", text: "<b> done" }]);
});

Deno.test("TextToolCallStream streams think blocks as reasoning", () => {
  const stream = new TextToolCallStream(TOOLS);
  assertEq(stream.push("<think>step one"), [{ type: "reasoning", text: "step one" }]);
  assertEq(stream.push(" two</thi"), [{ type: "reasoning", text: " two" }]);
  assertEq(stream.push("nk>Answer"), [{ type: "text", text: "Answer" }]);
});

Deno.test("parseTextToolCalls() finds nothing when no tools are offered", () => {
  const input = '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>';
  assertEq(parseTextToolCalls(input, []).calls, []);
});

Deno.test("parseTextToolCalls() strips a functions. prefix from names", () => {
  const parsed = parseTextToolCalls(
    '<tool_call>{"name": "functions.read_file", "arguments": {"path": "a"}}</tool_call>',
    TOOLS,
  );
  assertEq(parsed.calls, [{ name: "read_file", arguments: '{"path":"a"}' }]);
});
