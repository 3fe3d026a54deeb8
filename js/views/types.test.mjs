// The framework entries' .d.ts files as a TypeScript user reads them:
// types-check.ts compiles (tsc --noEmit, strict, nodenext) against the packed package.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { EXT_APPS_MAJOR } from "./support.mjs";
import { VIEWS } from "./setup.mjs";

test("types-check.ts compiles against mcp-sealed-state/vue, /svelte, /solid, /preact and /angular", { skip: EXT_APPS_MAJOR === 1 && "types are checked once, on the 2.x project" }, () => {
  const tsc = join(VIEWS, "node_modules/typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", "--types", "node", "types-check.ts"], {
    cwd: VIEWS,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
