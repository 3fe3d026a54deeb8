// tsc (js/node_modules' TypeScript) on types-check.ts: the packed package's
// types against tmcp's, as a TypeScript user of both installs them.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { FRAMEWORKS, setup } from "./setup.mjs";

test("tmcpRequestStateCodec's type fits tmcp's requestStateCodec option (tsc --strict)", async () => {
  setup();
  const tsc = join(FRAMEWORKS, "../node_modules/typescript/bin/tsc");
  const args = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "types-check.ts"];
  await promisify(execFile)(process.execPath, [tsc, ...args], { cwd: FRAMEWORKS }).catch((e) => {
    throw new Error(`tsc failed:\n${e.stdout}${e.stderr}`);
  });
});
