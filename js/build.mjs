// `npm --prefix js run build`: both wasm builds, wasm-opt, sizes, and the npm
// package assembled into ../pkg from ../pkg-template.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wasmOpt = join(root, "js/node_modules/.bin/wasm-opt"); // npm binaryen@132; Debian's 108 breaks wasm-bindgen output
// Features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept them.
const FEATURES = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue"];

// The edge build's wasm SIMD128 (base64url in 16-character blocks, src/wire/simd128.rs):
// every runtime it targets has it (Node 16.4+, workerd, Deno, Bun, Chromium 91+,
// Safari 16.4+). Its own target directory, so it and the plain wasm32 builds of
// clippy and the tests do not rebuild each other. The widget build stays scalar.
export const EDGE_SIMD_ENV = { RUSTFLAGS: `${process.env.RUSTFLAGS ?? ""} -C target-feature=+simd128`.trim(), CARGO_TARGET_DIR: join(root, "target/simd128") };

export const BUILDS = [
  // The widget loads in a fresh iframe on every tool call: built for size.
  { name: "widget", profile: ["--profile", "widget"], cargo: ["--no-default-features", "--features", "widget"], opt: ["-Oz", "--converge"] },
  // The edge runs on every request: built for speed; no `jcs` (the glue canonicalizes requests in JS).
  { name: "edge", profile: ["--release"], cargo: ["--no-default-features", "--features", "edge"], opt: ["--enable-simd", "-O3"], env: EDGE_SIMD_ENV },
];

function run(cmd, args, opts = {}) {
  execFileSync(cmd, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...opts });
}

export function sizes(file) {
  const bytes = readFileSync(file);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

// What a wasm build is made from: the crate's sources, manifest, lockfile and
// cargo config, the build's flags, and the toolchain's versions. With
// --reuse-wasm (./scripts/test --quick) a build whose hash matches the stamp
// written beside its output is not made again; the full ./scripts/test always rebuilds.
function inputsHash(build) {
  const hash = createHash("sha256");
  const add = (label, bytes) => hash.update(`${label}\0${bytes.length}\0`).update(bytes);
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of [...walk("src"), "Cargo.toml", "Cargo.lock", ".cargo/config.toml"]) {
    if (existsSync(join(root, file))) add(file, readFileSync(join(root, file)));
  }
  add("flags", JSON.stringify({ build, RUSTFLAGS: process.env.RUSTFLAGS ?? "", FEATURES }));
  add("tools", toolVersions());
  return hash.digest("hex");
}

let versions;
function toolVersions() {
  const version = (cmd, args) => execFileSync(cmd, args, { cwd: root, encoding: "utf8" }).trim();
  versions ??= [version("rustc", ["-V"]), version("wasm-pack", ["--version"]), version(wasmOpt, ["--version"])].join("\n");
  return versions;
}

function buildWasm(build, { reuse = false } = {}) {
  const { name, profile, cargo, opt, env = {} } = build;
  const out = join(root, "build", name);
  const wasm = join(out, `${name}_bg.wasm`);
  const stamp = join(out, ".inputs-sha256");
  const hash = inputsHash(build);
  const outputs = [`${name}.js`, `${name}.d.ts`, `${name}_bg.wasm`, `${name}_bg.wasm.d.ts`].map((f) => join(out, f));
  if (reuse && existsSync(stamp) && readFileSync(stamp, "utf8") === hash && outputs.every((f) => existsSync(f))) {
    console.log(`${name.padEnd(6)} .wasm  reused (its inputs are unchanged since the last build)`);
    return wasm;
  }
  rmSync(stamp, { force: true });
  run("wasm-pack", ["--quiet", "build", "--target", "web", ...profile, "--no-opt", "--no-pack", "--out-dir", out, "--out-name", name, "--", ...cargo], { env: { ...process.env, ...env } });
  run(wasmOpt, [...FEATURES, ...opt, "--strip-debug", "--strip-producers", "--strip-target-features", wasm, "-o", wasm]);
  rmSync(join(out, ".gitignore"), { force: true });
  writeFileSync(stamp, hash);
  return wasm;
}

// The widget's wasm inside the widget's browser entry as one hex string, which
// the entry decodes and compiles synchronously at import, so a one-file View
// fetches nothing (why hex: js/bench/RESULTS.md, Decisions).
function writeInlineWasm(pkg) {
  const bytes = readFileSync(join(pkg, "wasm/widget_bg.wasm"));
  const text = `// Written by js/build.mjs: wasm/widget_bg.wasm (${bytes.length} bytes), lowercase hex.\nexport const WIDGET_WASM_HEX = "${bytes.toString("hex")}";\n`;
  writeFileSync(join(pkg, "widget/wasm-inline.js"), text);
}

// Every relative import in the package names a file that is there: a file
// the build should have written (or `files` should have packed) and did not
// fails the build, not a user. pack.mjs runs it on the installed tarball too.
export function checkImports(pkg) {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".js")) files.push(p);
    }
  };
  walk(pkg);
  for (const file of files) {
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/(?:^|[\s;])(?:import|export)\b[^"'`;]*?from\s*["'](\.{1,2}\/[^"']+)["']/gm)) {
      if (!existsSync(join(dirname(file), spec))) throw new Error(`${file}: imports ${spec}, which the package does not have`);
    }
  }
}

// CommonJS needs no entry of its own: require() takes the "node" ES module
// (require(esm), unflagged from Node 20.19 and 22.12), one instance shared
// with import. But TypeScript in a CommonJS project (module node16/nodenext)
// reads a .d.ts of a "type": "module" package as ESM and refuses to require it
// (TS1479): the "require" types condition points at .d.cts copies whose
// relative imports name the .cjs twins. Every relative specifier must be rewritten.
export function ctsDeclarations(text, what) {
  const out = text.replace(/(from\s+"\.{1,2}\/[^"]+)\.js"/g, '$1.cjs"').replace(/(import\(\s*"\.{1,2}\/[^"]+)\.js"/g, '$1.cjs"');
  if (/(?:from\s+|import\(\s*)"\.{1,2}\/[^"]*(?<!\.cjs)"/.test(out)) throw new Error(`${what}: a relative import is left unrewritten`);
  return out;
}

// The .d.cts twins of every declaration the CommonJS entries' types reach:
// edge/index.d.cts and widget/index.d.cts, and what they import.
function writeCommonJsTypes(pkg) {
  const seen = new Set();
  const visit = (dts) => {
    if (seen.has(dts)) return;
    seen.add(dts);
    const text = readFileSync(join(pkg, dts), "utf8");
    writeFileSync(join(pkg, dts.replace(/\.d\.ts$/, ".d.cts")), ctsDeclarations(text, dts));
    for (const [, spec] of text.matchAll(/(?:from\s+|import\(\s*)"(\.{1,2}\/[^"]+)\.js"/g)) visit(join(dirname(dts), `${spec}.d.ts`));
  };
  for (const dts of ["edge/index.d.ts", "widget/index.d.ts"]) visit(dts);
}

// The package's .d.ts, emitted from pkg-template's JSDoc by tsc (js/tsconfig.pkg.json)
// beside each module. An entry folder whose JS is one file per runtime gets
// one index.d.ts: the declarations of the module every runtime's file exports.
const TSC = join(root, "js/node_modules/typescript/bin/tsc");
const ENTRY_TYPES = { "edge/index.d.ts": "edge/api.d.ts", "widget/index.d.ts": "widget/browser.d.ts" };
// A JS module re-exports another's @typedef as `@typedef {import("./m.js").T} T`,
// which tsc emits as a new alias; imported and exported as it is, it is the
// same declaration, which API documentation then finds where it is defined.
export function typeReexports(text) {
  return text.replace(/^export type (\w+)(?:<[^\n]*?>)? = import\("([^"]+)"\)\.\1(?:<[^;\n]*>)?;$/gm, 'import type { $1 } from "$2";\nexport type { $1 };');
}

export function emitDeclarations(pkg) {
  run(process.execPath, [
    TSC,
    "-p",
    join(root, "js/tsconfig.pkg.json"),
    "--noEmit",
    "false",
    "--declaration",
    "--emitDeclarationOnly",
    "--rootDir",
    join(root, "pkg-template"),
    "--declarationDir",
    pkg,
  ]);
  for (const file of readdirSync(pkg, { recursive: true })) {
    if (file.endsWith(".d.ts") && !file.startsWith("wasm")) writeFileSync(join(pkg, file), typeReexports(readFileSync(join(pkg, file), "utf8")));
  }
  for (const [index, from] of Object.entries(ENTRY_TYPES)) {
    if (existsSync(join(pkg, from))) cpSync(join(pkg, from), join(pkg, index));
  }
}

// require() in Node and Bun takes edge/node.cjs and widget/node.cjs: CommonJS
// files, so that the "require" types (.d.cts, CommonJS) describe a CommonJS
// file, not an ES module (attw's "Masquerading as CJS"). Each requires the ES
// entry (require(esm): one instance shared with import) and names its exports
// one by one, which is how an ES import() of the .cjs (a tool's
// import(require.resolve(...))) also sees them. The names are read off the
// entry itself, so the two cannot drift.
function writeCommonJsEntries(pkg) {
  for (const dir of ["edge", "widget"]) {
    const url = pathToFileURL(join(pkg, dir, "node.js")).href;
    const names = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(url)}))))`], { encoding: "utf8" }));
    if (!names.length || names.some((n) => !/^[A-Za-z_$][\w$]*$/.test(n))) throw new Error(`${dir}/node.js: unexpected export names ${names}`);
    const lines = names.map((n) => `exports.${n} = entry.${n};`);
    const text = `// Written by js/build.mjs: require() of mcp-sealed-state${dir === "edge" ? "" : "/widget"} in Node and Bun, the ES entry's exports by name.\n"use strict";\nconst entry = require("./node.js");\n${lines.join("\n")}\n`;
    writeFileSync(join(pkg, dir, "node.cjs"), text);
  }
}

function assemble(version) {
  const pkg = join(root, "pkg");
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(join(pkg, "wasm"), { recursive: true });
  const template = join(root, "pkg-template");
  cpSync(template, pkg, { recursive: true, filter: (src) => !src.endsWith("package.json") });
  // The licences and the changelog live at the repository's root, for the crate and the package alike.
  for (const f of ["LICENSE-MIT", "LICENSE-APACHE", "CHANGELOG.md"]) cpSync(join(root, f), join(pkg, f));
  for (const { name } of BUILDS) {
    for (const f of [`${name}.js`, `${name}.d.ts`, `${name}_bg.wasm`, `${name}_bg.wasm.d.ts`]) {
      cpSync(join(root, "build", name, f), join(pkg, "wasm", f));
    }
  }
  writeInlineWasm(pkg);
  emitDeclarations(pkg);
  writeCommonJsTypes(pkg);
  writeCommonJsEntries(pkg);
  const manifest = JSON.parse(readFileSync(join(template, "package.json"), "utf8"));
  if (manifest.version !== "0.0.0-cargo") throw new Error(`pkg-template/package.json: version ${manifest.version}, expected the 0.0.0-cargo placeholder`);
  manifest.version = version;
  writeFileSync(join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  checkImports(pkg);
  return pkg;
}

// The modules every entry a program imports must share: the error classes
// (common.js) and each build's wasm-bindgen glue (one wasm instance per build).
const SHARED = ["common.js", ...BUILDS.map((b) => `wasm/${b.name}.js`)];

// Each build's Node and browser entry is bundled into one file, the shared
// modules left as imports: Node and browsers load every ES module on its own,
// one level of imports after another (js/bench/RESULTS.md, Decisions). Not
// minified. Deno's and workerd's entries import the .wasm itself, which
// esbuild does not bundle: their graphs are read from disk as written.
async function bundleEntries(pkg) {
  const shared = new Set(SHARED.map((f) => join(pkg, f)));
  for (const { name } of BUILDS) {
    for (const [file, platform, target] of [
      ["node.js", "node", "node18"],
      ["browser.js", "neutral", "es2022"],
    ]) {
      const entry = join(pkg, name, file);
      const keepShared = {
        name: "keep-shared-modules",
        setup(build) {
          build.onResolve({ filter: /^\.{1,2}\// }, (args) => {
            const target = join(args.resolveDir, args.path);
            if (!shared.has(target)) return undefined;
            // The import as the bundle (in the entry's folder) must spell it.
            const spec = relative(dirname(entry), target);
            return { path: spec.startsWith(".") ? spec : `./${spec}`, external: true };
          });
        },
      };
      await esbuild.build({
        entryPoints: [entry],
        outfile: entry,
        allowOverwrite: true,
        absWorkingDir: pkg,
        bundle: true,
        format: "esm",
        platform,
        target,
        plugins: [keepShared],
        logLevel: "warning",
      });
    }
  }
}

// common.js with constants.js copied in, as the entries have them: one
// module fewer for every entry to load (js/bench/RESULTS.md, Decisions).
// constants.js ships too, for the graphs read from disk (Deno, workerd).
async function bundleCommon(pkg) {
  const file = join(pkg, "common.js");
  await esbuild.build({ entryPoints: [file], outfile: file, allowOverwrite: true, absWorkingDir: pkg, bundle: true, format: "esm", platform: "neutral", target: "es2022", logLevel: "warning" });
}

function cargoVersion() {
  const m = readFileSync(join(root, "Cargo.toml"), "utf8").match(/^version\s*=\s*"([^"]+)"/m);
  if (!m) throw new Error("no version in Cargo.toml");
  return m[1];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = [];
  const reuse = process.argv.includes("--reuse-wasm");
  for (const build of BUILDS) {
    const wasm = buildWasm(build, { reuse });
    rows.push({ build: build.name, ...sizes(wasm) });
  }
  const pkg = assemble(cargoVersion());
  await bundleEntries(pkg);
  await bundleCommon(pkg);
  checkImports(pkg);
  for (const r of rows) {
    console.log(`${r.build.padEnd(6)} .wasm  ${String(r.raw).padStart(7)} B raw  ${String(r.gzip).padStart(6)} B gzip -9  (${(r.gzip / 1024).toFixed(2)} KiB)`);
  }
  console.log(`package assembled in ${pkg} (npm pack ./pkg makes the tarball)`);
  if (!existsSync(join(pkg, "edge/node.js")) || statSync(join(pkg, "wasm/edge_bg.wasm")).size === 0) process.exit(1);
}
