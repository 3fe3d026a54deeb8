// Sizes of what ships: both .wasm files (raw, gzip -9) and the npm tarball.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = join(JS, "..");

export function measureSizes() {
  const wasm = ["widget", "edge"].map((name) => {
    const bytes = readFileSync(join(ROOT, "pkg/wasm", `${name}_bg.wasm`));
    return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const tgz = readdirSync(join(JS, "out")).find((f) => f.endsWith(".tgz"));
  const tarball = { name: `js/out/${tgz}`, raw: readFileSync(join(JS, "out", tgz)).length };
  return { wasm, tarball };
}
