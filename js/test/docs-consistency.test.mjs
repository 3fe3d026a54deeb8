// The reason lists in the docs and the .d.ts files say what the core says, as
// tests/constants.rs does for the constants: every list of reason codes (a run
// of quoted or backticked words with `malformed` in it) is the core's list,
// REASONS in pkg-template/constants.js (rendered from Rust), in its order; or,
// where the text is about the SDK's codec or the drop-in, the SDK's four.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

function coreReasons() {
  const text = readFileSync(join(ROOT, "pkg-template/constants.js"), "utf8");
  const match = text.match(/^export const REASONS = Object\.freeze\((?:\/\*\* @type \{const\} \*\/ )?\(?\[undefined, (.*)\]\)?\);$/m);
  assert.ok(match, "REASONS in pkg-template/constants.js");
  return JSON.parse(`[${match[1]}]`);
}
const CORE = coreReasons();
// What the SDK's codec rejects with, and so the drop-in's verify (docs/drop-in.md).
const SDK = ["malformed", "mac", "expired", "bind"];
const ABOUT_SDK = /SDK|drop-in|RequestStateCodec/;

function files() {
  const out = ["README.md", "SECURITY.md", "CHANGELOG.md", "pkg-template/README.md"];
  for (const f of readdirSync(join(ROOT, "docs"))) if (f.endsWith(".md")) out.push(`docs/${f}`);
  const walk = (dir) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (/\.(?:d\.c?ts|js)$/.test(e.name)) out.push(p);
    }
  };
  walk("pkg-template");
  return out;
}

// A word in backticks or quotes (`mac`, "mac", `"mac"`), then more of them
// joined by commas, "and"/"or", or `|`, across line breaks and comment marks.
const WORD = String.raw`[\x60"']{1,2}([a-z]+)["'\x60]{1,2}`;
const SEPARATOR = String.raw`\s*(?:(?:,|\|)\s*(?:(?:\*|\/\/\/?)\s*)?(?:and\s+|or\s+)?|(?:and|or)\s+)`;
const LIST = new RegExp(`${WORD}(?:${SEPARATOR}${WORD})+`, "g");

function reasonLists(text) {
  const lists = [];
  for (const m of text.matchAll(LIST)) {
    const words = [...m[0].matchAll(new RegExp(WORD, "g"))].map((w) => w[1]);
    if (!words.includes("malformed")) continue;
    const line = text.slice(0, m.index).split("\n").length;
    const before = text.slice(Math.max(0, m.index - 400), m.index);
    lists.push({ words, line, aboutSdk: ABOUT_SDK.test(before) });
  }
  return lists;
}

test("the list finder reads the forms the docs use (and so would see a stale list)", () => {
  const found = reasonLists(
    "`error.reason` (`malformed`, `mac`, `expired`,\n`bind`, `purpose`) is\n" + 'type R = "malformed" | "mac";\n(`"malformed"`, `"mac"`, or `"bind"`)\n' + "`malformed`, `mac` or\n`bind`",
  );
  assert.deepEqual(
    found.map((l) => l.words),
    [
      ["malformed", "mac", "expired", "bind", "purpose"],
      ["malformed", "mac"],
      ["malformed", "mac", "bind"],
      ["malformed", "mac", "bind"],
    ],
  );
});

test("every reason list in the docs and .d.ts files is the core's REASONS (or, about the SDK's codec, the SDK's four)", () => {
  assert.deepEqual(CORE.slice(0, 4), SDK, "the core's first four reasons are the SDK's");
  const wrong = [];
  let full = 0;
  for (const file of files()) {
    for (const { words, line, aboutSdk } of reasonLists(readFileSync(join(ROOT, file), "utf8"))) {
      const same = (list) => words.length === list.length && words.every((w, i) => w === list[i]);
      if (same(CORE)) full++;
      else if (!(aboutSdk && same(SDK))) wrong.push(`${relative(ROOT, join(ROOT, file))}:${line}: ${words.join(", ")} (the core's: ${CORE.join(", ")})`);
    }
  }
  assert.deepEqual(wrong, []);
  // README, SECURITY.md, docs/server.md, pkg-template/README.md and constants.js each have one.
  assert.ok(full >= 5, `only ${full} full reason lists found`);
});
