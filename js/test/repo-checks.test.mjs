// The repository checks of js/tools: what they flag and what they let pass.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HISTORY } from "../tools/history-comments.mjs";
import { folders, named } from "../tools/layout.mjs";

const tellsHistory = (line) => HISTORY.some((re) => re.test(line));
// The samples write "·" for the space that makes them history, so this file passes the check itself.
const spaced = (line) => line.replace("·", " ");

test("history-comments: issue and finding numbers, rounds and the main branch are history", () => {
  for (const line of [
    "// fixed in issue·36",
    "// (issue·23)",
    "// Issues·34 and 36: x",
    "// finding·5: y",
    "/// Finding·1 and 2",
    "// the last·round",
    "// round·3 of the review",
    "// the·review's findings",
    "// on·main this threw",
  ]) {
    assert.ok(!tellsHistory(line), `${line} as written`);
    assert.ok(tellsHistory(spaced(line)), spaced(line));
  }
});

test("history-comments: a round trip, another project's issue address and ordinary words pass", () => {
  for (const line of [
    "// before this round trip",
    "// one round-trip",
    "// github.com/modelcontextprotocol/ext-apps/issues/646",
    "async function main() {",
    "// finding tools a machine has",
    "// the issue is the clock",
  ]) {
    assert.ok(!tellsHistory(line), line);
  }
});

test("layout: the Layout section's folder spans are read, and every folder has one", () => {
  const md = "# x\n\n## Layout\n\n- `src/`: a\n  - `src/json/`: b, `build/view/x.html`\n\n## After\n\n- `later/`\n";
  assert.deepEqual([...named(md)].sort(), ["src/", "src/json/"]);
  const all = folders();
  for (const f of ["src/", "js/", "js/tools/", "tests/vectors/"]) assert.ok(all.includes(f), f);
  assert.ok(!all.some((f) => f.split("/").length > 3), "two levels at most");
});
