// Code says why, never history: fails (exit 1) on a line of a code file that
// tells where something came from (an issue or a review finding by number, a
// round of work, what the code did on the main branch) instead of the reason. Prose (*.md: CHANGELOG.md, docs/,
// READMEs) tells history where it belongs and is not read; nor are data files
// (JSON, lockfiles) or other projects' files (node_modules, third-party).
//
//   node js/tools/history-comments.mjs
//
// A link to another project's issue is written as its address
// (github.com/owner/repo/issues/N), which these patterns do not match.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** What history sounds like in this repository's comments. */
export const HISTORY = [
  /\bissues? #?\d+/i,
  /\bfindings? #?\d+/i,
  /\bitem \d+ of\b/i,
  /\brounds? \d+\b/i,
  /\b(?:last|previous|earlier|this|next) round\b(?![- ]trip)/i,
  /\bthe review's\b/i,
  /\bon main\b/i,
];

const CODE = /\.(?:rs|js|mjs|cjs|ts|mts|cts|jsx|tsx|sh|py|toml|html|css|yml|yaml)$/;
// Executables without an extension are code too.
const SCRIPTS = /^(?:scripts\/[^/.]+|\.ci\/[^/.]+)$/;
const SKIP = /(?:^|\/)(?:node_modules|third-party)\//;

/** Code files git tracks (or would add), relative to the root. */
function codeFiles() {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  return out.split("\0").filter((f) => f && !SKIP.test(f) && (CODE.test(f) || SCRIPTS.test(f)));
}

/** Every `file:line: text` that tells history. */
export function historyLines(files = codeFiles()) {
  const found = [];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(join(ROOT, file), "utf8");
    } catch {
      continue; // listed by git but deleted in the work tree
    }
    text.split("\n").forEach((line, i) => {
      if (HISTORY.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = historyLines();
  if (found.length > 0) {
    console.error(`${found.length} lines of code tell history; say why instead:\n${found.join("\n")}`);
    process.exit(1);
  }
}
