// Table tests for the tool-call dialects of open-weight model families (GLM, Kimi K2, MiniMax,
// Granite, InternLM, Jamba, Hunyuan, Phi-4-mini, xLAM, Seed-OSS, Step3, LongCat, Llama 3.x
// JSON, Mistral), written from each family's chat template and documented examples. Each
// case is parsed whole and streamed at every split point and in random chunks.

import { deepStrictEqual, ok } from "node:assert/strict";
import { parseTextToolCalls } from "../../src/providers/text_tool_calls.ts";
import { familiesFromTemplate } from "../../src/providers/text_tool_calls/chat_template.ts";
import { splits, streamed, TOOLS } from "../helpers/text_tool_calls_streaming.ts";

interface Case {
  name: string;
  input: string;
  text: string;
  reasoning?: string;
  calls?: [string, Record<string, unknown>][];
}

const FENCE = "```";

const CASES: Case[] = [
  // GLM-4.5 / 4.6: name on the tag's line, one part per line.
  {
    name: "GLM-4.5, two calls after prose and a think block, unicode and quotes",
    input: "<think>用户想知道天气。</think>\nI'll check both.\n<tool_call>get_weather\n" +
      "<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n<arg_key>days</arg_key>\n" +
      "<arg_value>3</arg_value>\n</tool_call>\n<tool_call>read_file\n<arg_key>path</arg_key>\n" +
      '<arg_value>docs/"quoted" name.md</arg_value>\n</tool_call>',
    text: "I'll check both.",
    reasoning: "用户想知道天气。",
    calls: [["get_weather", { city: "北京", days: 3 }], ["read_file", {
      path: 'docs/"quoted" name.md',
    }]],
  },
  // GLM-4.7: no newlines; non-string values written as JSON.
  {
    name: "GLM-4.7 compact, nested JSON values coerced to the schema",
    input: "<tool_call>set_flag<arg_key>enabled</arg_key><arg_value>false</arg_value>" +
      '<arg_key>tags</arg_key><arg_value>["a", "b"]</arg_value><arg_key>options</arg_key>' +
      '<arg_value>{"deep": {"list": [1, {"x": "}"}]}}</arg_value><arg_key>label</arg_key>' +
      "<arg_value>007</arg_value></tool_call>Done.",
    text: "Done.",
    calls: [["set_flag", {
      enabled: false,
      tags: ["a", "b"],
      options: { deep: { list: [1, { x: "}" }] } },
      label: "007",
    }]],
  },
  {
    name: "GLM with no arguments",
    input: "<tool_call>read_file</tool_call>",
    text: "",
    calls: [["read_file", {}]],
  },
  {
    name: "GLM with markup and escapes inside a value",
    input: "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n" +
      '<arg_key>content</arg_key>\n<arg_value>line "one"\n<b>two</b> \\n</arg_value>\n</tool_call>',
    text: "",
    calls: [["write_file", { path: "a.md", content: 'line "one"\n<b>two</b> \\n' }]],
  },
  {
    name: "GLM call inside a think block stays reasoning",
    input: "<think><tool_call>get_weather<arg_key>city</arg_key><arg_value>X</arg_value>" +
      "</tool_call></think>No tool needed.",
    text: "No tool needed.",
    reasoning: "<tool_call>get_weather<arg_key>city</arg_key><arg_value>X</arg_value></tool_call>",
  },
  // Kimi K2: special tokens, `functions.NAME:IDX` ids.
  {
    name: "Kimi K2, two calls after prose, unicode and escaped quotes",
    input: "Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0" +
      '<|tool_call_argument_begin|>{"city": "Tōkyō"}<|tool_call_end|><|tool_call_begin|>' +
      'functions.read_file:1<|tool_call_argument_begin|>{"path": "a \\"b\\".txt"}' +
      "<|tool_call_end|><|tool_calls_section_end|>",
    text: "Let me look.",
    calls: [["get_weather", { city: "Tōkyō" }], ["read_file", { path: 'a "b".txt' }]],
  },
  {
    name: "Kimi K2 Thinking, nested JSON holding an end token",
    input: "<think>Need flags.</think><|tool_calls_section_begin|>\n<|tool_call_begin|>" +
      'functions.set_flag:0<|tool_call_argument_begin|>{"options": {"a": [1, {"b": ' +
      '"<|tool_call_end|>"}]}}<|tool_call_end|>\n<|tool_calls_section_end|>',
    text: "",
    reasoning: "Need flags.",
    calls: [["set_flag", { options: { a: [1, { b: "<|tool_call_end|>" }] } }]],
  },
  {
    name: "Kimi without the section tokens or the functions prefix",
    input:
      '<|tool_call_begin|>read_file:0<|tool_call_argument_begin|>{"path": "x"}<|tool_call_end|>',
    text: "",
    calls: [["read_file", { path: "x" }]],
  },
  {
    name: "Kimi truncated inside the arguments: no call, no tokens shown",
    input: "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0" +
      '<|tool_call_argument_begin|>{"city": "Be',
    text: 'Sure.functions.get_weather:0{"city": "Be',
  },
  // MiniMax M1: JSON lines in <tool_calls>.
  {
    name: "MiniMax M1, JSON lines with the closing tag inside a string",
    input: "<think>Two lookups.</think>\n<tool_calls>\n" +
      '{"name": "get_weather", "arguments": {"city": "Paris"}}\n' +
      '{"name": "read_file", "arguments": {"path": "</tool_calls>"}}\n</tool_calls>',
    text: "",
    reasoning: "Two lookups.",
    calls: [["get_weather", { city: "Paris" }], ["read_file", { path: "</tool_calls>" }]],
  },
  // MiniMax M2: XML invokes.
  {
    name: "MiniMax M2, two invokes after prose, values coerced",
    input: 'I\'ll run two tools.\n<minimax:tool_call>\n<invoke name="get_weather">\n' +
      '<parameter name="city">São Paulo</parameter>\n<parameter name="days">2</parameter>\n' +
      '</invoke>\n<invoke name="set_flag">\n<parameter name="tags">["x", "y"]</parameter>\n' +
      '<parameter name="enabled">true</parameter>\n<parameter name="options">{"k": {"v": ' +
      "[1]}}</parameter>\n</invoke>\n</minimax:tool_call>",
    text: "I'll run two tools.",
    calls: [["get_weather", { city: "São Paulo", days: 2 }], ["set_flag", {
      tags: ["x", "y"],
      enabled: true,
      options: { k: { v: [1] } },
    }]],
  },
  {
    name: "MiniMax M2 with interleaved thinking and markup in a value",
    input: '<think>Write it.</think>\n<minimax:tool_call>\n<invoke name="write_file">\n' +
      '<parameter name="path">x.html</parameter>\n<parameter name="content"><p>"hi" & ' +
      "bye</p></parameter>\n</invoke>\n</minimax:tool_call>",
    text: "",
    reasoning: "Write it.",
    calls: [["write_file", { path: "x.html", content: '<p>"hi" & bye</p>' }]],
  },
  // IBM Granite.
  {
    name: "Granite 3.0 <|tool_call|> list of two",
    input: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Boston"}}, ' +
      '{"name": "read_file", "arguments": {"path": "r"}}]',
    text: "",
    calls: [["get_weather", { city: "Boston" }], ["read_file", { path: "r" }]],
  },
  {
    name: "Granite 3.2 <tool_call> list without a closing tag",
    input: '<tool_call>[{"name": "get_weather", "arguments": {"city": "Zürich", "days": 1}}]',
    text: "",
    calls: [["get_weather", { city: "Zürich", days: 1 }]],
  },
  // InternLM.
  {
    name: "InternLM plugin action after prose",
    input: "I need the weather.<|action_start|><|plugin|>\n" +
      '{"name": "get_weather", "parameters": {"city": "Shanghai"}}<|action_end|>\n',
    text: "I need the weather.",
    calls: [["get_weather", { city: "Shanghai" }]],
  },
  {
    name: "InternLM, two actions after a think block, unicode and escaped quotes",
    input: "<think>两个工具。</think>Checking.<|action_start|><|plugin|>\n" +
      '{"name": "get_weather", "parameters": {"city": "上海"}}<|action_end|>\n' +
      '<|action_start|><|plugin|>{"name": "read_file", "parameters": {"path": "\\"a\\".md"}}' +
      "<|action_end|>",
    text: "Checking.",
    reasoning: "两个工具。",
    calls: [["get_weather", { city: "上海" }], ["read_file", { path: '"a".md' }]],
  },
  {
    name: "InternLM interpreter action: code, not a call, tokens dropped",
    input: "<|action_start|><|interpreter|>\nprint(1)<|action_end|>",
    text: "print(1)",
  },
  // AI21 Jamba and Hunyuan.
  {
    name: "Jamba <tool_calls> JSON list",
    input: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Tel Aviv"}}, ' +
      '{"name": "read_file", "arguments": {"path": "p"}}]</tool_calls>',
    text: "",
    calls: [["get_weather", { city: "Tel Aviv" }], ["read_file", { path: "p" }]],
  },
  {
    name: "Hunyuan with a think block and a <tool_calls> list",
    input: "<think>\nneed tool\n</think>\n" +
      '<tool_calls>[{"name": "get_weather", "arguments": {"city": "深圳"}}]</tool_calls>',
    text: "",
    reasoning: "need tool",
    calls: [["get_weather", { city: "深圳" }]],
  },
  // Phi-4-mini.
  {
    name: "Phi-4-mini functools list of two",
    input: 'functools[{"name": "get_weather", "arguments": {"city": "Seattle"}}, ' +
      '{"name": "read_file", "arguments": {"path": "q \\"r\\""}}]',
    text: "",
    calls: [["get_weather", { city: "Seattle" }], ["read_file", { path: 'q "r"' }]],
  },
  {
    name: "Phi-4-mini functools after prose, nested JSON",
    input: 'Let me set it. functools[{"name": "set_flag", "arguments": {"options": ' +
      '{"a": {"b": ["]", "}"]}}}}]<|end|>',
    text: "Let me set it.",
    calls: [["set_flag", { options: { a: { b: ["]", "}"] } } }]],
  },
  // Salesforce xLAM.
  {
    name: "xLAM bare JSON list",
    input: '[{"name": "get_weather", "arguments": {"city": "New York"}}, ' +
      '{"name": "read_file", "arguments": {"path": "ny.txt"}}]',
    text: "",
    calls: [["get_weather", { city: "New York" }], ["read_file", { path: "ny.txt" }]],
  },
  {
    name: "xLAM list in a json fence",
    input: `${FENCE}json\n[{"name": "get_weather", "arguments": {"city": "Oslo"}}]\n${FENCE}\n`,
    text: "",
    calls: [["get_weather", { city: "Oslo" }]],
  },
  // vLLM's xLAM test "single_tool_with_json_code_block": a sentence, then the fenced list.
  {
    name: "xLAM fenced list after a sentence of prose",
    input: `I'll help you with that.\n${FENCE}json\n[{"name": "get_weather", "arguments": ` +
      `{"city": "Dallas", "days": 2}}, {"name": "read_file", "arguments": {"path": "tx"}}]\n${FENCE}`,
    text: "I'll help you with that.",
    calls: [["get_weather", { city: "Dallas", days: 2 }], ["read_file", { path: "tx" }]],
  },
  {
    name: "xLAM fenced list after a think block and a sentence",
    input: `<think>Weather.</think>Checking.\n\n${FENCE}\n[{"name": "get_weather", ` +
      `"arguments": {"city": "Lyon"}}]\n${FENCE}\n`,
    text: "Checking.",
    reasoning: "Weather.",
    calls: [["get_weather", { city: "Lyon" }]],
  },
  {
    name: "xLAM list in <tool_call>",
    input: '<tool_call>[{"name": "read_file", "arguments": {"path": "t"}}]</tool_call>',
    text: "",
    calls: [["read_file", { path: "t" }]],
  },
  // Seed-OSS.
  {
    name: "Seed-OSS with seed:think and a function call",
    input: "<seed:think>I should check. <seed:cot_budget_reflect>20 used" +
      "</seed:cot_budget_reflect></seed:think>\n<seed:tool_call>\n<function=get_weather>\n" +
      "<parameter=city>Hangzhou</parameter>\n<parameter=days>5</parameter>\n</function>\n" +
      "</seed:tool_call>",
    text: "",
    reasoning: "I should check. <seed:cot_budget_reflect>20 used</seed:cot_budget_reflect>",
    calls: [["get_weather", { city: "Hangzhou", days: 5 }]],
  },
  {
    name: "Seed-OSS call inside seed:think stays reasoning",
    input: "<seed:think><seed:tool_call><function=read_file><parameter=path>a</parameter>" +
      "</function></seed:tool_call></seed:think>Nothing to read.",
    text: "Nothing to read.",
    reasoning:
      "<seed:tool_call><function=read_file><parameter=path>a</parameter></function></seed:tool_call>",
  },
  {
    name: "Seed-OSS, two functions in one block after prose",
    input: "Both files.\n<seed:tool_call>\n<function=read_file>\n<parameter=path>a ü.txt" +
      "</parameter>\n</function>\n<function=write_file>\n<parameter=path>b</parameter>\n" +
      '<parameter=content>{"k": "v"}</parameter>\n</function>\n</seed:tool_call>',
    text: "Both files.",
    calls: [["read_file", { path: "a ü.txt" }], ["write_file", {
      path: "b",
      content: '{"k": "v"}',
    }]],
  },
  // StepFun Step3.
  {
    name: "Step3 steptml, two calls between prose",
    input: "Let me help you.\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜>" +
      '<steptml:invoke name="get_weather">\n<steptml:parameter name="city">Tokyo' +
      '</steptml:parameter>\n<steptml:parameter name="days">10</steptml:parameter>\n' +
      "</steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜>" +
      '<steptml:invoke name="read_file"><steptml:parameter name="path">a&b.txt' +
      "</steptml:parameter></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>\n" +
      "Here are the results.",
    text: "Let me help you.\n\nHere are the results.",
    calls: [["get_weather", { city: "Tokyo", days: 10 }], ["read_file", { path: "a&b.txt" }]],
  },
  {
    name: "Step3 with a think block, a single call without the outer tokens",
    input: "<think>One call.</think><｜tool_call_begin｜>function<｜tool_sep｜>" +
      '<steptml:invoke name="set_flag"><steptml:parameter name="count">2.5</steptml:parameter>' +
      '<steptml:parameter name="label">"x"</steptml:parameter></steptml:invoke><｜tool_call_end｜>',
    text: "",
    reasoning: "One call.",
    calls: [["set_flag", { count: 2.5, label: '"x"' }]],
  },
  // Step3 as vLLM's parser tests write it: no `function<｜tool_sep｜>` head, a stray
  // `<｜tool_sep｜>` between two calls, or the tool's name on the head's line.
  {
    name: "Step3 without the function head, two calls with a separator between",
    input: "<｜tool_calls_begin｜><｜tool_call_begin｜>" +
      '<steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter>' +
      "</steptml:invoke><｜tool_call_end｜><｜tool_sep｜><｜tool_call_begin｜>" +
      '<steptml:invoke name="read_file"><steptml:parameter name="path">Asia/Tokyo' +
      "</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    text: "",
    calls: [["get_weather", { city: "Tokyo" }], ["read_file", { path: "Asia/Tokyo" }]],
  },
  {
    name: "Step3 without the function head between prose, and an empty call",
    input: "Let me check the weather for you.\n\n<｜tool_calls_begin｜><｜tool_call_begin｜>" +
      '<steptml:invoke name="set_flag"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>' +
      "\n\nI'll get that information.",
    text: "Let me check the weather for you.\n\n\n\nI'll get that information.",
    calls: [["set_flag", {}]],
  },
  {
    name: "Step3 with the tool's name after the head, whitespace kept in a string",
    input: "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>write_file\n" +
      '<steptml:invoke name="write_file"><steptml:parameter name="content">    if x:' +
      '</steptml:parameter><steptml:parameter name="path"> a.py</steptml:parameter>' +
      "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    text: "",
    calls: [["write_file", { content: "    if x:", path: " a.py" }]],
  },
  // LongCat.
  {
    name: "LongCat two blocks",
    input: '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Beijing"}}' +
      '</longcat_tool_call>\n<longcat_tool_call>{"name": "read_file", "arguments": ' +
      '{"path": "x"}}</longcat_tool_call>',
    text: "",
    calls: [["get_weather", { city: "Beijing" }], ["read_file", { path: "x" }]],
  },
  {
    name: "LongCat after a think block, nested JSON and unicode",
    input: "<think>用工具</think>\nSure.\n<longcat_tool_call>\n" +
      '{"name": "set_flag", "arguments": {"options": {"城市": ["北京", {"x": "</longcat_tool_call>"}]}}}' +
      "\n</longcat_tool_call>",
    text: "Sure.",
    reasoning: "用工具",
    calls: [["set_flag", { options: { 城市: ["北京", { x: "</longcat_tool_call>" }] } }]],
  },
  // Llama 3.x JSON with prose.
  {
    name: "Llama JSON after prose",
    input: 'Let me check that.\n{"name": "get_weather", "parameters": {"city": "Lima"}}',
    text: "Let me check that.",
    calls: [["get_weather", { city: "Lima" }]],
  },
  {
    name: "Llama JSON before prose",
    input: '{"name": "read_file", "parameters": {"path": "x"}}\nI will read it.',
    text: "I will read it.",
    calls: [["read_file", { path: "x" }]],
  },
  {
    name: "Llama JSON, two calls joined by ; after prose, eot_id",
    input: 'Two calls: {"name": "get_weather", "parameters": {"city": "A"}}; ' +
      '{"type": "function", "name": "read_file", "parameters": {"path": "b"}}<|eot_id|>',
    text: "Two calls:",
    calls: [["get_weather", { city: "A" }], ["read_file", { path: "b" }]],
  },
  {
    name: "Llama JSON with nested braces, escaped quotes and unicode in strings",
    input: 'Writing:\n{"name": "write_file", "parameters": {"path": "ü.txt", "content": ' +
      '"say \\"hi\\" {not: json} [x]"}}\nDone.',
    text: "Writing:\n\nDone.",
    calls: [["write_file", { path: "ü.txt", content: 'say "hi" {not: json} [x]' }]],
  },
  {
    name: "gpt-oss analysis channel quoting a call stays reasoning",
    input: '<|channel|>analysis<|message|>Maybe <tool_call>{"name": "read_file", "arguments": ' +
      "{}}</tool_call>? No.<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>",
    text: "Done.",
    reasoning: 'Maybe <tool_call>{"name": "read_file", "arguments": {}}</tool_call>? No.',
  },
  {
    name: "Jamba list after prose, with a think block",
    input: "<think>x</think>Looking it up.\n<tool_calls>[\n" +
      '{"name": "get_weather", "arguments": {"city": "Haifa", "days": 2}},\n' +
      '{"name": "read_file", "arguments": {"path": "\\u00e9.txt"}}\n]</tool_calls>',
    text: "Looking it up.",
    reasoning: "x",
    calls: [["get_weather", { city: "Haifa", days: 2 }], ["read_file", { path: "é.txt" }]],
  },
  {
    name: "xLAM list after a think block",
    input: '<think>Plan.</think>\n[{"name": "read_file", "arguments": {"path": "a"}}, ' +
      '{"name": "read_file", "arguments": {"path": "b"}}]',
    text: "",
    reasoning: "Plan.",
    calls: [["read_file", { path: "a" }], ["read_file", { path: "b" }]],
  },
  {
    name: "Kimi call inside a think block stays reasoning",
    input: "<think><|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0" +
      '<|tool_call_argument_begin|>{"path": "x"}<|tool_call_end|><|tool_calls_section_end|>' +
      "</think>Done.",
    text: "Done.",
    reasoning: "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0" +
      '<|tool_call_argument_begin|>{"path": "x"}<|tool_call_end|><|tool_calls_section_end|>',
  },
  // Mistral before v11.
  {
    name: "Mistral [TOOL_CALLS] JSON list of two",
    input: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Nice"}}, ' +
      '{"name": "read_file", "arguments": {"path": "n"}}]</s>',
    text: "",
    calls: [["get_weather", { city: "Nice" }], ["read_file", { path: "n" }]],
  },
  {
    name: "Mistral [TOOL_CALLS] before prose: the marker is dropped",
    input: "[TOOL_CALLS] I cannot call a tool for that.",
    text: "I cannot call a tool for that.",
  },
  {
    name: "Mistral [TOOL_CALLS] naming a tool not offered: shown without markers",
    input: '[TOOL_CALLS][{"name": "rm_rf", "arguments": {}}]',
    text: '[{"name": "rm_rf", "arguments": {}}]',
  },
];

/** Inputs that must come back unchanged, with no calls. */
const TEXT_ONLY: [string, string][] = [
  ["prose naming the tags", "The <tool_call> tag wraps a call; GLM writes <arg_key> pairs."],
  [
    "a GLM call to a tool not offered",
    "<tool_call>delete_all<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>",
  ],
  ["prose naming the MiniMax tag", "Use <minimax:tool_call> blocks and <tool_calls> lists."],
  ["a JSON object with a name but no arguments", 'A value {"name": "read_file"} here.'],
  ["functools in prose", "functools is a module; functools[0] and myfunctools[1] are not calls."],
  [
    "a fenced xLAM list followed by prose",
    `${FENCE}json\n[{"name": "read_file", "arguments": {}}]\n${FENCE}\nThat is the format.`,
  ],
  [
    "a fenced xLAM list after two lines of prose",
    `The format is a list.\nLike this:\n${FENCE}json\n[{"name": "read_file", "arguments": {}}]\n${FENCE}`,
  ],
  ["prose naming Seed's tag", "<seed:tool_call> is Seed's tag, <steptml:invoke> Step's."],
  [
    "a LongCat call to a tool not offered",
    '<longcat_tool_call>{"name": "rm_rf", "arguments": {}}</longcat_tool_call>',
  ],
  [
    "Llama JSON quoted in inline code",
    'Write `{"name": "read_file", "parameters": {"path": "x"}}` to call.',
  ],
  ["Llama JSON naming a tool not offered", 'Ok {"name": "rm_rf", "parameters": {}} then.'],
  ["a JSON object that is not a call", 'The result was {"name": "Ada", "age": 36}.'],
  ["a usage line with [ARGS]", "Usage: harness tool NAME [ARGS] [CALL_ID]"],
];

/** Blocks cut off before they are complete: no call, whatever is shown. */
const TRUNCATED: [string, string][] = [
  ["GLM", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Tok"],
  ["GLM name only", "<tool_call>get_weather"],
  ["MiniMax M2", '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Par'],
  [
    "Step3",
    '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="read_file">',
  ],
  [
    "Step3 without the function head",
    '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="read_file">',
  ],
  ["xLAM fenced list after prose", `Sure.\n${FENCE}json\n[{"name": "read_file", "arguments": {"pa`],
  ["Llama JSON", 'Sure: {"name": "get_weather", "parameters": {"city": '],
  ["Granite", '<|tool_call|>[{"name": "get_weather", "arguments": {"ci'],
  ["InternLM", '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {'],
  ["Phi-4-mini", 'functools[{"name": "get_weather", "arguments": {"city": "x"}}'],
  ["Kimi", "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0"],
];

const MARKERS = [
  "<tool_call",
  "<arg_",
  "<|",
  "<｜",
  "[TOOL_",
  "[ARGS]",
  "<minimax:",
  "<invoke",
  "<steptml:",
  "<seed:",
  "<longcat",
  "functools[",
  "<tool_calls",
  "<think",
  "</think",
];

function expected(c: Case) {
  return {
    text: c.text,
    reasoning: c.reasoning ?? "",
    calls: (c.calls ?? []).map(([name, args]) => ({ name, arguments: JSON.stringify(args) })),
  };
}

for (const c of CASES) {
  Deno.test(`parseTextToolCalls() reads ${c.name}`, () => {
    deepStrictEqual(parseTextToolCalls(c.input, TOOLS), expected(c));
  });

  Deno.test(`TextToolCallStream reads ${c.name} in any chunks`, () => {
    const want = expected(c);
    const whole = streamed([c.input]);
    deepStrictEqual(whole.calls, want.calls.map((call) => call.name));
    deepStrictEqual(whole.text.trim(), want.text);
    deepStrictEqual(whole.reasoning.trim(), want.reasoning);
    for (const marker of MARKERS) ok(!whole.text.includes(marker), `${marker} in ${whole.text}`);
    for (const chunks of splits(c.input)) {
      deepStrictEqual(streamed(chunks), whole, JSON.stringify(chunks.slice(0, 4)));
    }
  });
}

for (const [name, input] of TEXT_ONLY) {
  Deno.test(`parseTextToolCalls() leaves ${name} as text`, () => {
    deepStrictEqual(parseTextToolCalls(input, TOOLS), { text: input, reasoning: "", calls: [] });
  });

  Deno.test(`TextToolCallStream shows ${name} as text in any chunks`, () => {
    for (const chunks of splits(input)) {
      deepStrictEqual(streamed(chunks), { text: input, reasoning: "", calls: [] });
    }
  });
}

for (const [name, input] of TRUNCATED) {
  Deno.test(`parseTextToolCalls() makes no call of a truncated ${name} block`, () => {
    deepStrictEqual(parseTextToolCalls(input, TOOLS).calls, []);
  });

  Deno.test(`TextToolCallStream makes no call of a truncated ${name} block`, () => {
    const whole = streamed([input]);
    deepStrictEqual(whole.calls, []);
    for (const chunks of splits(input)) deepStrictEqual(streamed(chunks), whole);
  });
}

Deno.test("parseTextToolCalls() reads only the families it is given", () => {
  const kimi = '<|tool_call_begin|>read_file:0<|tool_call_argument_begin|>{"path": "x"}' +
    "<|tool_call_end|>";
  deepStrictEqual(parseTextToolCalls(kimi, TOOLS, { families: ["hermes"] }).calls, []);
  deepStrictEqual(parseTextToolCalls(kimi, TOOLS, { families: ["kimi"] }).calls, [
    { name: "read_file", arguments: '{"path":"x"}' },
  ]);
  const llama = 'See {"name": "read_file", "parameters": {"path": "x"}}';
  deepStrictEqual(parseTextToolCalls(llama, TOOLS, { families: ["glm"] }).text, llama);
  deepStrictEqual(streamed([llama], { families: ["glm"] }).text, llama);
});

/** Pieces of real chat templates and the families they must select. */
const TEMPLATES: [string, string, string[]][] = [
  [
    "GLM-4.5",
    "{{- '<tool_call>' + tc.name -}}{% for k, v in _args.items() %}\n<arg_key>{{ k }}</arg_key>" +
    "\n<arg_value>{{ v | tojson(ensure_ascii=False) if v is not string else v }}</arg_value>",
    ["glm", "hermes"],
  ],
  [
    "Kimi K2",
    "{%- if message['tool_calls'] -%}<|tool_calls_section_begin|>{%- for tool_call in " +
    "message['tool_calls'] -%}<|tool_call_begin|>{{ tool_call['id'] }}",
    ["kimi"],
  ],
  [
    "Qwen3",
    '<tool_call>\\n{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call>',
    ["hermes"],
  ],
  [
    "Qwen3-Coder",
    "<tool_call>\\n<function=example_function_name>\\n<parameter=example_parameter_1>",
    ["qwen_xml", "hermes"],
  ],
  ["Llama 3.1", "{{- '<|python_tag|>' + tool_call.name + '.call(' }}", ["llama_json"]],
  ["Mistral", "{{- '[TOOL_CALLS]' }}{{- tool_calls | tojson }}", ["mistral"]],
  ["MiniMax M2", "{{- '<minimax:tool_call>' + '\\n' }}<invoke name=", ["minimax"]],
  ["Seed-OSS", "<seed:tool_call>\\n<function={{ name }}>", ["seed_oss", "qwen_xml"]],
];

for (const [model, template, families] of TEMPLATES) {
  Deno.test(`familiesFromTemplate() reads the ${model} template`, () => {
    deepStrictEqual(familiesFromTemplate(template)?.sort(), families.sort());
  });
}

Deno.test("familiesFromTemplate() leaves a template without tool markers undecided", () => {
  deepStrictEqual(
    familiesFromTemplate("{% for m in messages %}{{ m.content }}{% endfor %}"),
    undefined,
  );
});

Deno.test("parseTextToolCalls() with a GLM template's families reads GLM and not Llama JSON", () => {
  const families = familiesFromTemplate("<tool_call>{{ n }}<arg_key>")!;
  const glm = "<tool_call>read_file<arg_key>path</arg_key><arg_value>a</arg_value></tool_call>";
  deepStrictEqual(parseTextToolCalls(glm, TOOLS, { families }).calls, [
    { name: "read_file", arguments: '{"path":"a"}' },
  ]);
  const llama = 'Like {"name": "read_file", "parameters": {"path": "x"}}';
  deepStrictEqual(parseTextToolCalls(llama, TOOLS, { families }).calls, []);
});

/** Pieces of answers in every dialect, plus the characters that start markup. */
const FRAGMENTS = [
  "Hello ",
  "\n",
  "<think>r</think>",
  "<seed:think>s</seed:think>",
  "`code <tool_call>`",
  `${FENCE}json\n`,
  `${FENCE}\n`,
  '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>',
  "<tool_call>read_file<arg_key>path</arg_key><arg_value>b</arg_value></tool_call>",
  "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0" +
  '<|tool_call_argument_begin|>{"path": "c"}<|tool_call_end|><|tool_calls_section_end|>',
  '<minimax:tool_call><invoke name="read_file"><parameter name="path">d</parameter></invoke>' +
  "</minimax:tool_call>",
  '<tool_calls>[{"name": "read_file", "arguments": {"path": "e"}}]</tool_calls>',
  '<|tool_call|>[{"name": "read_file", "arguments": {"path": "f"}}]',
  '<|action_start|><|plugin|>{"name": "read_file", "parameters": {"path": "g"}}<|action_end|>',
  'functools[{"name": "read_file", "arguments": {"path": "h"}}]',
  "<seed:tool_call><function=read_file><parameter=path>i</parameter></function></seed:tool_call>",
  "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>" +
  '<steptml:invoke name="read_file"><steptml:parameter name="path">j</steptml:parameter>' +
  "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
  '<longcat_tool_call>{"name": "read_file", "arguments": {"path": "k"}}</longcat_tool_call>',
  '{"name": "read_file", "parameters": {"path": "l"}}',
  "; ",
  '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "m"}}]',
  "[TOOL_CALLS]",
  '[{"name": "read_file", "arguments": {"path": "n"}}]',
  "{",
  "}",
  "[",
  "]",
  "<",
  "<tool_call>",
  "</tool_call>",
  "<|tool_call_begin|>",
  "functools",
  "f",
  "<arg_key>",
  "<invoke",
  '"',
  "é東",
  "<|eot_id|>",
];

Deno.test("TextToolCallStream agrees with parseTextToolCalls on random mixes of dialects", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  for (let n = 0; n < 400; n++) {
    let text = "";
    for (let i = 1 + Math.floor(random() * 10); i > 0; i--) text += pick(FRAGMENTS);
    const chunks: string[] = [];
    for (let i = 0; i < text.length;) {
      const size = 1 + Math.floor(random() * 7);
      chunks.push(text.slice(i, i + size));
      i += size;
    }
    const parsed = parseTextToolCalls(text, TOOLS);
    const want = {
      text: parsed.text.trim(),
      reasoning: parsed.reasoning.trim(),
      calls: parsed.calls.map((call) => call.name),
    };
    for (const got of [streamed([text]), streamed(chunks)]) {
      const trimmed = { ...got, text: got.text.trim(), reasoning: got.reasoning.trim() };
      deepStrictEqual(trimmed, want, JSON.stringify(chunks));
    }
  }
});
