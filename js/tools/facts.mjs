// The facts the docs state (the store order, the reasons, the defaults, the
// size limits and the demo servers' HTTP names) are written between markers
// and rendered from their one definition: pkg-template/constants.js (itself
// rendered from the Rust core by tests/constants.rs), for the reasons table the
// `Reason` enum of src/error.rs with its doc comments, and for the HTTP names
// (`principalHeader`, `mirrorQuery`, ...) www/server/http-names.json. In a page,
//
//   `ttlSeconds` (default <!-- fact: DEFAULT_TTL_SECONDS -->600<!-- /fact --> seconds)
//
// renders as "600": what is between the markers is rewritten, the markers stay.
// js/test/facts.test.mjs fails when a page differs from its rendering.
//
//   node js/tools/facts.mjs          rewrites the pages
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const C = await import(pathToFileURL(join(ROOT, "pkg-template/constants.js")).href);
const HTTP_NAMES = JSON.parse(readFileSync(join(ROOT, "www/server/http-names.json"), "utf8"));

/** The pages that carry facts: the READMEs, SECURITY.md and docs/. */
export const PAGES = [
  "README.md",
  "SECURITY.md",
  "pkg-template/README.md",
  "rust-server/README.md",
  "www/server/README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

const code = (words) => words.map((w) => `\`${w}\``).join(", ");
const bytes = (n) => (n % (1 << 20) === 0 ? `${n >> 20} MiB` : n % 1024 === 0 ? `${n >> 10} KiB` : `${n} bytes`);

/** The `Reason` enum's variants with their doc comments, in code order. */
function reasonDocs() {
  const source = readFileSync(join(ROOT, "src/error.rs"), "utf8");
  const body = source.match(/pub enum Reason \{([\s\S]*?)\n\}/)?.[1];
  if (body === undefined) throw new Error("src/error.rs: no `pub enum Reason { ... }`");
  const rows = [...body.matchAll(/((?:\s*\/\/\/.*\n)+)\s*\w+ = (\d+),/g)].map((m) => ({
    code: Number(m[2]),
    meaning: m[1]
      .split("\n")
      .map((l) => l.replace(/^\s*\/\/\/\s?/, ""))
      .join(" ")
      .trim()
      .replace(/\.$/, ""),
  }));
  const names = C.REASONS.slice(1);
  if (rows.length !== names.length || rows.some((r, i) => r.code !== i + 1)) throw new Error("src/error.rs: the Reason variants are not REASONS in code order");
  return rows.map((r, i) => ({ ...r, name: names[i] }));
}

/** What each fact renders as. A name of constants.js renders its value (bytes as KiB or MiB, `_MS` as "N ms"). */
const FACTS = {
  reasons: () => code(C.REASONS.slice(1)),
  "sdk-reasons": () => code(C.SDK_REASONS),
  stores: () => code(C.VIEW_STATE_STORES.map((s) => JSON.stringify(s))),
  "reasons-table": () =>
    ["", "", "| code | reason | meaning |", "|---|---|---|", ...reasonDocs().map((r) => `| ${r.code} | \`${r.name}\` | ${r.meaning[0].toLowerCase()}${r.meaning.slice(1)} |`), "", ""].join("\n"),
};

/** The text of fact `name` (`NAME` of constants.js, or `NAME raw` for its bare number; a name of http-names.json renders as code). */
export function fact(name) {
  if (Object.hasOwn(FACTS, name)) return FACTS[name]();
  if (typeof HTTP_NAMES[name] === "string" && !name.startsWith("$")) return code([HTTP_NAMES[name]]);
  const [constant, form] = name.split(" ");
  const value = C[constant];
  if (typeof value !== "number" || (form !== undefined && form !== "raw")) throw new Error(`unknown fact "${name}"`);
  if (form === "raw") return String(value);
  if (constant.endsWith("_MS")) return `${value} ms`;
  if (constant.endsWith("_BYTES") || constant.endsWith("_CHARS")) return bytes(value);
  return String(value);
}

const SPAN = /(<!-- fact: ([^>]+?) -->)([\s\S]*?)(<!-- \/fact -->)/g;

/** `text` with every fact between its markers rendered. */
export function render(text) {
  return text.replace(SPAN, (_, open, name, _old, close) => `${open}${fact(name)}${close}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const page of PAGES) {
    const path = join(ROOT, page);
    const text = readFileSync(path, "utf8");
    const rendered = render(text);
    if (rendered !== text) {
      writeFileSync(path, rendered);
      console.log(`rendered the facts of ${page}`);
    }
  }
}
