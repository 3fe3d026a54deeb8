// The fenced code blocks of a Markdown file, and the one that names a file in
// its first line, so that tests build projects from the docs' own code (read
// at run time, never copied): `// src/worker.js`, `# wrangler.toml`,
// `<!-- view.html -->`.

/** The fenced code blocks of `markdown`: { lang, text }. */
export function codeBlocks(markdown) {
  return [...markdown.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], text: m[2] }));
}

/** The first line's comment text: `// a`, `# a` and `<!-- a -->` all give "a". */
const firstLineName = (text) =>
  text
    .split("\n")[0]
    .replace(/^(\/\/|#|<!--)\s*/, "")
    .replace(/\s*-->$/, "")
    .trim();

/** The text of the block of `blocks` whose first line names `file`; throws naming `source` when there is none. */
export function fileBlock(blocks, file, source = "the Markdown") {
  const block = blocks.find((b) => firstLineName(b.text) === file);
  if (block === undefined) throw new Error(`${source} has no code block that starts with a comment naming ${file}`);
  return block.text;
}
