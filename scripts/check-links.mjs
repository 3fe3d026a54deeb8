// Every relative link in the repository's Markdown names a file that is there,
// and a #fragment a heading of that file: a page moved or renamed fails here,
// not for a reader. Run by ./scripts/test (both modes); takes no time.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.md"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && existsSync(join(root, f)));

// Markdown outside fenced code blocks, and outside inline code too, where a link is a link.
const unfenced = (text) => text.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm, "");
const prose = (text) => unfenced(text).replace(/`[^`\n]*`/g, "");

// GitHub's heading anchors: lowercased, punctuation (backticks too) dropped, spaces to dashes.
const anchors = (text) =>
  new Set(
    [...unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map(([, h]) =>
      h
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    ),
  );

const broken = [];
for (const file of files) {
  const text = readFileSync(join(root, file), "utf8");
  for (const [, target] of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
    const [path, fragment] = target.split("#");
    const resolved = path ? join(dirname(join(root, file)), decodeURI(path)) : join(root, file);
    if (!existsSync(resolved)) broken.push(`${file}: ${target} (no ${relative(root, resolved)})`);
    else if (fragment && statSync(resolved).isFile() && resolved.endsWith(".md") && !anchors(readFileSync(resolved, "utf8")).has(fragment.toLowerCase())) {
      broken.push(`${file}: ${target} (no heading #${fragment} in ${relative(root, resolved)})`);
    }
  }
}
if (broken.length) {
  console.error(`broken relative links:\n  ${broken.join("\n  ")}`);
  process.exit(1);
}
console.log(`${files.length} Markdown files: every relative link resolves`);
