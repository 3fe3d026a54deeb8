// docs/frameworks.md is the rendering of the recipe files that the framework
// tests run (docs.mjs): a recipe changed without the page fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { PAGE, render } from "./docs.mjs";

test("docs/frameworks.md shows the recipe files as they are (node js/frameworks/docs.mjs rewrites it)", () => {
  assert.equal(readFileSync(PAGE, "utf8"), render());
});
