// The languages the code graph understands: which grammar parses a file (by extension) and
// the tree-sitter query that finds its definitions and references. Captures follow the
// tree-sitter "tags" convention: `@name` on the identifier, `@definition.KIND` or
// `@reference.KIND` on the whole node.

/** A grammar shipped as a prebuilt wasm file by npm:tree-sitter-wasms. */
export type GrammarId =
  | "typescript"
  | "tsx"
  | "javascript"
  | "python"
  | "go"
  | "rust"
  | "c"
  | "cpp"
  | "java"
  | "ruby"
  | "bash";

const JS_COMMON = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant))
(program (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.class
`;

const TS_QUERY = `${JS_COMMON}
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(module name: (identifier) @name) @definition.module
(internal_module name: (identifier) @name) @definition.module
(extends_clause value: (identifier) @name) @reference.class
(abstract_method_signature name: (property_identifier) @name) @definition.method
(type_identifier) @name @reference.type
`;

const JS_QUERY = `${JS_COMMON}
(class_declaration name: (identifier) @name) @definition.class
(class_heritage (identifier) @name) @reference.class
`;

const PYTHON_QUERY = `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name)) @definition.constant)
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call
`;

const GO_QUERY = `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.variable)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
(type_identifier) @name @reference.type
`;

const RUST_QUERY = `
(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.class
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.interface
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(type_identifier) @name @reference.type
`;

const C_COMMON = `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name) @definition.constant
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(type_identifier) @name @reference.type
`;

const CPP_QUERY = `${C_COMMON}
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(namespace_definition name: (namespace_identifier) @name) @definition.module
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
`;

const JAVA_QUERY = `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.class
(type_identifier) @name @reference.type
`;

const RUBY_QUERY = `
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (_) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution name: (_) @name)) @definition.module
(call method: (identifier) @name) @reference.call
(constant) @name @reference.class
`;

const BASH_QUERY = `
(function_definition name: (word) @name) @definition.function
(command name: (command_name (word) @name)) @reference.call
`;

/** The tags query of each grammar. */
export const TAGS_QUERIES: Readonly<Record<GrammarId, string>> = {
  typescript: TS_QUERY,
  tsx: TS_QUERY,
  javascript: JS_QUERY,
  python: PYTHON_QUERY,
  go: GO_QUERY,
  rust: RUST_QUERY,
  c: C_COMMON,
  cpp: CPP_QUERY,
  java: JAVA_QUERY,
  ruby: RUBY_QUERY,
  bash: BASH_QUERY,
};

const EXTENSIONS: Readonly<Record<string, GrammarId>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  java: "java",
  rb: "ruby",
  sh: "bash",
  bash: "bash",
};

/**
 * The grammar that parses `path`, judged by its extension, or undefined.
 *
 * @example
 * ```ts
 * import { grammarFor } from "./languages.ts";
 * if (grammarFor("src/a.tsx") !== "tsx" || grammarFor("README.md") !== undefined) throw new Error();
 * ```
 */
export function grammarFor(path: string): GrammarId | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  if (path.endsWith(".d.ts")) return "typescript";
  return EXTENSIONS[path.slice(dot + 1).toLowerCase()];
}
