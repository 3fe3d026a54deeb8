// The docs state the store order, the reasons, the defaults and the size
// limits only between fact markers, rendered from their one definition
// (js/tools/facts.mjs): a page whose facts differ from their rendering fails,
// and so does a list of reasons or of stores written outside the markers.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PAGES, fact, render } from "../tools/facts.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const read = (page) => readFileSync(join(ROOT, page), "utf8");
const HTTP_NAMES = JSON.parse(read("www/server/http-names.json"));

test("every page's facts are rendered from their definition (node js/tools/facts.mjs rewrites them)", () => {
  const stale = PAGES.filter((page) => read(page) !== render(read(page)));
  assert.deepEqual(stale, []);
});

test("a fact renders from constants.js and src/error.rs; an unknown one is an error, not a blank", () => {
  assert.match(fact("reasons"), /^`malformed`, `mac`, /);
  assert.match(fact("stores"), /^`"host"`, /);
  assert.match(fact("DEFAULT_MAX_TOKEN_BYTES"), /^\d+ KiB$/);
  assert.match(fact("DEFAULT_MAX_TOKEN_BYTES raw"), /^\d+$/);
  assert.match(fact("DEFAULT_BRIDGE_TIMEOUT_MS"), /^\d+ ms$/);
  assert.match(fact("reasons-table"), /\n\| 1 \| `malformed` \| .+ \|\n/);
  for (const name of ["NO_SUCH_CONSTANT", "DEFAULT_TTL_SECONDS kib", "STATE_META_KEY"]) assert.throws(() => fact(name), /unknown fact/, name);
});

test("a demo server's HTTP name renders from www/server/http-names.json as code; a list or the comment is no fact", () => {
  assert.equal(fact("principalHeader"), `\`${HTTP_NAMES.principalHeader}\``);
  assert.equal(fact("mirrorQuery"), `\`${HTTP_NAMES.mirrorQuery}\``);
  for (const name of ["corsAllowHeaders", "$comment"]) assert.throws(() => fact(name), /unknown fact/, name);
});

test("no page names the principal header or the mirror query outside the fact markers", () => {
  const names = [HTTP_NAMES.principalHeader, `?${HTTP_NAMES.mirrorQuery}=`];
  const copies = PAGES.flatMap((page) => names.filter((name) => outsideMarkers(read(page)).includes(name)).map((name) => `${page}: ${name}`));
  assert.deepEqual(copies, []);
});

// A word in backticks or quotes (`mac`, "mac", `"mac"`), then more of them
// joined by commas, "and"/"or", ">" or "|", across line breaks.
const WORD = String.raw`[\x60"']{1,2}([a-z]+)["'\x60]{1,2}`;
const SEPARATOR = String.raw`\s*(?:(?:,|\||>)\s*(?:and\s+|or\s+|then\s+)?|(?:and|or|then)\s+)`;
const LIST = new RegExp(`${WORD}(?:${SEPARATOR}${WORD})+`, "g");
const outsideMarkers = (text) => text.replace(/<!-- fact: [^>]+ -->[\s\S]*?<!-- \/fact -->/g, "");

/** Lists of reasons (with `malformed`) or of three or more stores, outside the markers. */
function handCopies(text) {
  const found = [];
  for (const m of outsideMarkers(text).matchAll(LIST)) {
    const words = [...m[0].matchAll(new RegExp(WORD, "g"))].map((w) => w[1]);
    const stores = words.filter((w) => ["host", "openai", "local", "memory"].includes(w));
    if (words.includes("malformed") || stores.length >= 3) found.push(words.join(", "));
  }
  return found;
}

test("the copy finder sees the forms a hand-written list takes", () => {
  const lists = handCopies(
    '`error.reason` (`malformed`, `mac`, `expired`,\n`bind`) is\n"host" > "openai" > "local"\n`"host"`, `"openai"`, `"local"` or `"memory"`\n<!-- fact: reasons -->`malformed`, `mac`<!-- /fact -->',
  );
  assert.deepEqual(lists, ["malformed, mac, expired, bind", "host, openai, local", "host, openai, local, memory"]);
});

test("no page lists the reasons or the stores outside the fact markers", () => {
  const copies = PAGES.flatMap((page) => handCopies(read(page)).map((list) => `${page}: ${list}`));
  assert.deepEqual(copies, []);
});
