// The seeded edit corpus of bench/diagnostics_bench.ts: small real-looking modules in five
// languages and, from a seed, a sequence of edits on each (each edit's text before and after):
// breaking edits (a syntax error, an undefined name, a wrong type), fixes of an earlier break
// (so stale diagnostics would show), and clean edits that move lines (so pre-existing errors
// move). The same seed gives the same 100 edits.

/** A module of the corpus. */
export interface CorpusFile {
  name: string;
  ext: string;
  text: string;
}

/** One edit of the corpus. */
export interface CorpusEdit {
  file: CorpusFile;
  kind: "break" | "fix" | "clean";
  before: string | null;
  after: string;
}

const TS = `export interface Item {
  name: string;
  price: number;
  count: number;
}

export function add(a: number, b: number): number {
  return a + b;
}

export function total(items: Item[]): number {
  let sum = 0;
  for (const item of items) {
    sum = add(sum, item.price * item.count);
  }
  return sum;
}

export function cheapest(items: Item[]): Item | undefined {
  let best: Item | undefined;
  for (const item of items) {
    if (best === undefined || item.price < best.price) best = item;
  }
  return best;
}

export function describe(item: Item): string {
  const label: string = item.name.toUpperCase();
  const each: number = item.price;
  return \`\${label} x\${item.count} at \${each}\`;
}

export const LIMIT: number = 10;
`;

const PY = `from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    count: int


def add(a: float, b: float) -> float:
    return a + b


def total(items: list[Item]) -> float:
    result = 0.0
    for item in items:
        result = add(result, item.price * item.count)
    return result


def cheapest(items: list[Item]) -> Item | None:
    best = None
    for item in items:
        if best is None or item.price < best.price:
            best = item
    return best


def describe(item: Item) -> str:
    label: str = item.name.upper()
    each: float = item.price
    return f"{label} x{item.count} at {each}"


LIMIT: int = 10
`;

const GO = `package shop

type Item struct {
	Name  string
	Price float64
	Count int
}

func Add(a float64, b float64) float64 {
	return a + b
}

func Total(items []Item) float64 {
	sum := 0.0
	for _, item := range items {
		sum = Add(sum, item.Price*float64(item.Count))
	}
	return sum
}
`;

const RS = `pub struct Item {
    pub name: String,
    pub price: f64,
    pub count: u32,
}

pub fn add(a: f64, b: f64) -> f64 {
    a + b
}

pub fn total(items: &[Item]) -> f64 {
    let mut sum = 0.0;
    for item in items {
        sum = add(sum, item.price * item.count as f64);
    }
    sum
}
`;

const JS = `export function add(a, b) {
  return a + b;
}

export function total(items) {
  let sum = 0;
  for (const item of items) {
    sum = add(sum, item.price * item.count);
  }
  return sum;
}

export function names(items) {
  return items.map((item) => item.name).join(", ");
}
`;

/** The corpus's modules. */
export const CORPUS_FILES: readonly CorpusFile[] = [
  { name: "shop", ext: ".ts", text: TS },
  { name: "shop", ext: ".py", text: PY },
  { name: "shop", ext: ".go", text: GO },
  { name: "shop", ext: ".rs", text: RS },
  { name: "shop", ext: ".js", text: JS },
];

/** A small deterministic random source. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

/** A break of one line: its new text, made so that it is unique in the file. */
function breakLine(line: string, ext: string, pick: (n: number) => number): string | undefined {
  const options: (() => string | undefined)[] = [
    // A syntax error: a closing bracket lost, or a colon at the end of a Python block.
    () =>
      line.includes(")")
        ? line.slice(0, line.lastIndexOf(")")) + line.slice(line.lastIndexOf(")") + 1)
        : undefined,
    () => ext === ".py" && line.trimEnd().endsWith(":") ? line.trimEnd().slice(0, -1) : undefined,
    // An undefined name.
    () =>
      /\bitem\b/.test(line) && !/\bfor\b/.test(line) ? line.replace(/\bitem\b/, "itme") : undefined,
    () =>
      /\bsum\b/.test(line) && !/(let|:=|mut)/.test(line)
        ? line.replace(/\bsum\b/, "smu")
        : undefined,
    // A wrong type.
    () =>
      /: number = \d+/.test(line) ? line.replace(/: number = (\d+)/, ': number = "$1"') : undefined,
    () => /: int = \d+/.test(line) ? line.replace(/: int = (\d+)/, ': int = "$1"') : undefined,
  ];
  const start = pick(options.length);
  for (let i = 0; i < options.length; i++) {
    const made = options[(start + i) % options.length]!();
    if (made !== undefined && made !== line) return made;
  }
  return undefined;
}

/** A clean edit: a comment line somewhere (moving the lines below), or one at the end. */
function cleanEdit(text: string, ext: string, pick: (n: number) => number): string {
  const comment = ext === ".py" ? "# checked" : "// checked";
  const lines = text.split("\n");
  const at = pick(2) === 0 ? 0 : lines.length - 1;
  const indent = at === 0 ? "" : "";
  lines.splice(at, 0, `${indent}${comment} ${pick(1000)}`);
  return lines.join("\n");
}

/**
 * The corpus's edits: 35 TypeScript, 35 Python, 10 each of Go, Rust and JavaScript.
 *
 * @param seed Picks the edits.
 * @param options `python`: whether a Python server runs (the count is the same either way).
 */
export function editsOf(seed: number, _options: { python: boolean }): CorpusEdit[] {
  const pick = random(seed);
  const counts: Record<string, number> = { ".ts": 35, ".py": 35, ".go": 10, ".rs": 10, ".js": 10 };
  const edits: CorpusEdit[] = [];
  for (const file of CORPUS_FILES) {
    let text = file.text;
    const breaks: { broken: string; original: string }[] = [];
    edits.push({ file, kind: "clean", before: null, after: text });
    for (let i = 1; i < counts[file.ext]!; i++) {
      const roll = pick(10);
      const before = text;
      if (breaks.length > 0 && (roll < 4 || breaks.length >= 3)) {
        const fixed = breaks.splice(pick(breaks.length), 1)[0]!;
        text = text.replace(fixed.broken, fixed.original);
        edits.push({ file, kind: "fix", before, after: text });
        continue;
      }
      if (roll < 7) {
        const lines = text.split("\n");
        for (let tries = 0; tries < 20; tries++) {
          const at = pick(lines.length);
          const original = lines[at]!;
          const broken = breakLine(original, file.ext, pick);
          if (broken === undefined || text.includes(broken)) continue;
          lines[at] = broken;
          text = lines.join("\n");
          breaks.push({ broken, original });
          break;
        }
        if (text !== before) {
          edits.push({ file, kind: "break", before, after: text });
          continue;
        }
      }
      text = cleanEdit(text, file.ext, pick);
      edits.push({ file, kind: "clean", before, after: text });
    }
  }
  return edits;
}
