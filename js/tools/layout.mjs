// docs/development.md's Layout names every folder of the repository down to
// the second level, as a code span of its path (`js/bench/`). Fails (exit 1)
// on a folder without one, and on a named folder that does not exist, so the
// page cannot drift from the tree.
//
//   node js/tools/layout.mjs
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PAGE = "docs/development.md";

/** The folders, top level and second level, that hold a file git tracks or would add. */
export function folders() {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  const found = new Set();
  for (const file of out.split("\0").filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the work tree
    const parts = file.split("/");
    if (parts.length > 1) found.add(`${parts[0]}/`);
    if (parts.length > 2) found.add(`${parts[0]}/${parts[1]}/`);
  }
  return [...found].sort();
}

/** The folder paths the Layout section names as code spans. */
export function named(markdown) {
  const start = markdown.indexOf("\n## Layout\n");
  if (start < 0) throw new Error(`${PAGE} has no "## Layout" section`);
  const rest = markdown.slice(start + 1);
  const end = rest.indexOf("\n## ", 3);
  const section = end < 0 ? rest : rest.slice(0, end);
  return new Set([...section.matchAll(/`(\.?[\w-]+\/(?:[\w.-]+\/)?)`/g)].map((m) => m[1]));
}

/** Problems, one line each: folders with no line, lines with no folder. */
export function layoutProblems() {
  const listed = named(readFileSync(join(ROOT, PAGE), "utf8"));
  const missing = folders()
    .filter((f) => !listed.has(f))
    .map((f) => `${f} has no line in ${PAGE}'s Layout`);
  const gone = [...listed].filter((f) => !existsSync(join(ROOT, f)) || !statSync(join(ROOT, f)).isDirectory()).map((f) => `${PAGE}'s Layout names ${f}, which is not a folder`);
  return [...missing, ...gone];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = layoutProblems();
  if (problems.length > 0) {
    console.error(problems.join("\n"));
    process.exit(1);
  }
}
