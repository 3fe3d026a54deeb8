// A newcomer's path, as a script: pack the tarball,
// make a fresh Worker project from docs/server.md's own code blocks (extracted
// here, at run time, never copied), install the tarball, and run it under
// `wrangler dev --local` (npm wrangler on npm node 22, as js/suite does):
//
//   1. no key, development: a token sealed in one request opens in the next;
//   2. NODE_ENV = "production" and no key: the request fails, and the error
//      names the STATE_KEY binding to set;
//   3. with a STATE_KEY: a fresh Rust project, whose dependency line comes from
//      docs/rust.md (as a `path` dependency on this checkout), opens the
//      Worker's token.
//
//   node js/newcomer/run.mjs        (exit 0: every step held; prints each step)
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { codeBlocks, fileBlock } from "../lib/markdown-blocks.mjs";
import { freePort } from "../lib/servers.mjs";
import { WRANGLER_ENV } from "../suite/wrangler-run.mjs";

const execFileP = promisify(execFile);
const JS = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(JS, "..");
const OUT = join(JS, "out/newcomer");
const NODE22 = join(JS, "node_modules/node/bin/node"); // wrangler needs Node >= 22.12
const WRANGLER = join(JS, "node_modules/wrangler/bin/wrangler.js");
const KEY = "newcomer-key: a Worker secret of at least 32 bytes";

const say = (text) => console.log(`[newcomer] ${text}`);
function fail(text) {
  console.error(`[newcomer] FAILED: ${text}`);
  process.exit(1);
}

/** docs/server.md's block that names `file` in its first line. */
function readmeFile(blocks, file) {
  try {
    return fileBlock(blocks, file, "docs/server.md");
  } catch (e) {
    fail(e.message);
  }
}

// ---- the project, from docs/server.md alone---------------------------------

say("node js/pack.mjs");
await execFileP(process.execPath, [join(JS, "pack.mjs")], { cwd: ROOT });
const tarball = readdirSync(join(JS, "out")).find((f) => /^mcp-sealed-state-.*\.tgz$/.test(f));
if (tarball === undefined) fail("js/pack.mjs left no tarball in js/out");

rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, "worker/src"), { recursive: true });
const blocks = codeBlocks(readFileSync(join(ROOT, "docs/server.md"), "utf8"));
writeFileSync(join(OUT, "worker/src/worker.js"), readmeFile(blocks, "src/worker.js"));
writeFileSync(join(OUT, "worker/wrangler.toml"), readmeFile(blocks, "wrangler.toml"));
writeFileSync(join(OUT, "worker/package.json"), `${JSON.stringify({ name: "newcomer-worker", private: true, type: "module" }, null, 2)}\n`);
cpSync(join(JS, "out", tarball), join(OUT, "worker", tarball));
say(`npm install ./${tarball} (a fresh project: src/worker.js and wrangler.toml from docs/server.md)`);
await execFileP("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `./${tarball}`], { cwd: join(OUT, "worker") });

// ---- wrangler dev --local ---------------------------------------------------

/** Run `wrangler dev --local` with `vars`, call `fn(base)`, stop it; returns fn's result and wrangler's output. */
async function withWrangler(vars, fn) {
  const dir = join(OUT, "worker");
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const env = { ...process.env, ...WRANGLER_ENV, XDG_CONFIG_HOME: join(dir, ".config"), WRANGLER_LOG_PATH: join(dir, ".wrangler-logs") };
  delete env.NODE_OPTIONS;
  const args = [WRANGLER, "dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false", ...varArgs];
  const child = spawn(NODE22, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  const out = { text: "" };
  child.stdout.on("data", (d) => (out.text += d));
  child.stderr.on("data", (d) => (out.text += d));
  const exited = new Promise((resolve) => child.on("close", resolve));
  const base = `http://127.0.0.1:${port}`;
  try {
    // Bounded wait for the first answer; a wrangler that exits ends it at once.
    let up = false;
    for (let i = 0; i < 600 && !up; i++) {
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 100))]);
      if (code !== undefined) fail(`wrangler dev exited ${code} before answering:\n${out.text}`);
      up = await fetch(`${base}/__up`).then(
        () => true,
        () => false,
      );
    }
    if (!up) fail(`wrangler dev never answered on ${base}:\n${out.text}`);
    return { result: await fn(base), output: () => out.text };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

// docs/server.md's Worker: GET / seals { count: 0 }; GET /?state=T opens T and seals count + 1.
const call = async (base, state) => {
  const r = await fetch(state === undefined ? base : `${base}/?${new URLSearchParams({ state })}`);
  const text = await r.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: r.status, body };
};

say("1. wrangler dev, no STATE_KEY, NODE_ENV=development: a token from one request opens in the next");
const dev = await withWrangler({ NODE_ENV: "development" }, async (base) => {
  const first = await call(base);
  const second = first.status === 200 ? await call(base, first.body.state) : undefined;
  const third = second?.status === 200 ? await call(base, second.body.state) : undefined;
  return { first, second, third };
});
const { first, second, third } = dev.result;
if (first.status !== 200 || first.body.count !== 0) fail(`the first request: ${JSON.stringify(first)}\n${dev.output()}`);
if (second?.status !== 200 || second.body.count !== 1) fail(`the next request did not open the first's token: ${JSON.stringify(second)}\n${dev.output()}`);
if (third?.status !== 200 || third.body.count !== 2) fail(`the third request: ${JSON.stringify(third)}`);
if (!dev.output().includes("no key configured; using a development key")) fail(`no development-key warning in wrangler's output:\n${dev.output()}`);
say(`   counts 0, 1, 2 across three requests; the warning was logged`);

say('2. wrangler dev, no STATE_KEY, NODE_ENV = "production" (docs/server.md\'s wrangler.toml): the request fails naming STATE_KEY');
const prod = await withWrangler({}, (base) => call(base));
if (prod.result.status < 500) fail(`production without a key answered ${prod.result.status}: ${JSON.stringify(prod.result.body)}`);
const named = "set the Worker secret STATE_KEY";
if (!prod.output().includes(named) && !JSON.stringify(prod.result.body).includes(named)) fail(`the failure does not name the binding ("${named}"):\n${prod.output()}`);
say(`   ${prod.result.status}, and the error says "${named}"`);

say("3. wrangler dev with STATE_KEY, production: a fresh Rust project from docs/rust.md's lines opens the Worker's token");
const keyed = await withWrangler({ STATE_KEY: KEY }, (base) => call(base));
if (keyed.result.status !== 200) fail(`with a key: ${JSON.stringify(keyed.result)}\n${keyed.output()}`);

// ---- a fresh Rust project ---------------------------------------------------

// The dependency as docs/rust.md spells it (a Cargo.toml line, or `cargo add`),
// pointed at this checkout with `path`, its features kept.
const rustDoc = readFileSync(join(ROOT, "docs/rust.md"), "utf8");
const tomlLine = rustDoc.match(/^mcp-sealed-state\s*=\s*(.+)$/m);
const addLine = rustDoc.match(/^\s*(?:\$\s*)?cargo add mcp-sealed-state\b(.*)$/m);
if (tomlLine === null && addLine === null) fail("docs/rust.md has no `mcp-sealed-state = ...` [dependencies] line and no `cargo add mcp-sealed-state` line");
const features =
  tomlLine !== null
    ? (tomlLine[1].match(/features\s*=\s*\[([^\]]*)\]/)?.[1] ?? "")
    : [...addLine[1].matchAll(/--features[= ]([\w,-]+)|-F[= ]?([\w,-]+)/g)]
        .map((m) =>
          (m[1] ?? m[2])
            .split(",")
            .map((f) => JSON.stringify(f))
            .join(", "),
        )
        .join(", ");
const dependency = `mcp-sealed-state = { path = ${JSON.stringify(ROOT)}${features.trim() === "" ? "" : `, features = [${features}]`} }`;
say(`   [dependencies] ${dependency}  (from: ${(tomlLine ?? addLine)[0].trim()})`);
const rust = join(OUT, "opener");
mkdirSync(join(rust, "src"), { recursive: true });
writeFileSync(join(rust, "Cargo.toml"), `[package]\nname = "opener"\nversion = "0.1.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n${dependency}\n\n[workspace]\n`);
cpSync(join(ROOT, "Cargo.lock"), join(rust, "Cargo.lock")); // the checkout's versions, so nothing new is resolved
writeFileSync(
  join(rust, "src/main.rs"),
  `use mcp_sealed_state::{Codec, CodecOptions, OpenWith};

fn main() {
    let key = std::env::var("STATE_KEY").unwrap_or_default();
    let token = std::env::args().nth(1).unwrap_or_default();
    let codec = match Codec::new(CodecOptions::with_keys(vec![key])) {
        Ok(codec) => codec,
        Err(e) => {
            eprintln!("no codec: {e}");
            std::process::exit(2);
        }
    };
    match codec.open(&token, &OpenWith::view()) {
        Ok(opened) => println!("{}", opened.payload),
        Err(e) => {
            eprintln!("refused: {:?}", e.reason());
            std::process::exit(1);
        }
    }
}
`,
);
const cargoEnv = { ...process.env, CARGO_TARGET_DIR: join(ROOT, "target/newcomer") };
try {
  await execFileP("cargo", ["build", "--quiet"], { cwd: rust, env: cargoEnv, maxBuffer: 16 << 20 });
} catch (e) {
  fail(`cargo build of the fresh project:\n${e.stderr}`);
}
const bin = join(ROOT, "target/newcomer/debug/opener");
const opened = await execFileP(bin, [keyed.result.body.state], { env: { ...process.env, STATE_KEY: KEY } }).catch((e) => fail(`Rust refused the Worker's token: ${e.stderr}`));
if (JSON.parse(opened.stdout).count !== 0) fail(`Rust opened ${opened.stdout}`);
const wrong = await execFileP(bin, [keyed.result.body.state], { env: { ...process.env, STATE_KEY: `${KEY}!` } }).then(
  () => "opened",
  (e) => e.stderr.trim(),
);
if (!/^refused: Mac$/i.test(wrong)) fail(`Rust with another key: ${wrong}`);
say(`   Rust opened ${opened.stdout.trim()}, and refused it under another key (${wrong})`);
say("every step held");
