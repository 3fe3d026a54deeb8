// `npm --prefix js run build`: both wasm builds, wasm-opt, sizes, and the npm
// package assembled into ../pkg from ../pkg-template.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wasmOpt = join(root, "js/node_modules/.bin/wasm-opt"); // npm binaryen@132; Debian's 108 breaks wasm-bindgen output
// Features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept them.
const FEATURES = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue"];

export const BUILDS = [
  // The widget loads in a fresh iframe on every tool call: built for size.
  { name: "widget", profile: ["--profile", "widget"], cargo: ["--no-default-features", "--features", "widget"], opt: ["-Oz", "--converge"] },
  // The edge runs on every request: built for speed.
  { name: "edge", profile: ["--release"], cargo: ["--features", "edge"], opt: ["-O3"] },
];

function run(cmd, args, opts = {}) {
  execFileSync(cmd, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...opts });
}

export function sizes(file) {
  const bytes = readFileSync(file);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

function buildWasm({ name, profile, cargo, opt }) {
  const out = join(root, "build", name);
  run("wasm-pack", ["--quiet", "build", "--target", "web", ...profile, "--no-opt", "--no-pack", "--out-dir", out, "--out-name", name, "--", ...cargo]);
  const wasm = join(out, `${name}_bg.wasm`);
  run(wasmOpt, [...FEATURES, ...opt, "--strip-debug", "--strip-producers", "--strip-target-features", wasm, "-o", wasm]);
  rmSync(join(out, ".gitignore"), { force: true });
  return wasm;
}

// The loaders: each runtime gets the wasm its own way, so no importer calls init().
const loaders = (name) => ({
  // Node (ESM): read the file and compile synchronously.
  "node.js": `import { readFileSync } from "node:fs";
import { initSync } from "../wasm/${name}.js";
initSync({ module: readFileSync(new URL("../wasm/${name}_bg.wasm", import.meta.url)) });
export * from "./api.js";
`,
  // workerd refuses to compile wasm from bytes at run time: import it as a module.
  "workerd.js": `import wasm from "../wasm/${name}_bg.wasm";
import { initSync } from "../wasm/${name}.js";
initSync({ module: wasm });
export * from "./api.js";
`,
  // Browsers: fetch and compile once, behind top-level await. (Deno has its own, pkg-template/loaders/deno.js.)
  "browser.js": `import init from "../wasm/${name}.js";
await init({ module_or_path: new URL("../wasm/${name}_bg.wasm", import.meta.url) });
export * from "./api.js";
`,
});

// Entries written from template files in pkg-template/loaders/ (the deno
// loader): `{{NAME}}` is filled per build, and a placeholder this script has
// no value for, or one left unfilled, fails the build.
const LOADER_TEMPLATES = ["deno.js"];

export function fill(text, values, what) {
  const out = text.replace(/\{\{(\w+)\}\}/g, (_, name) => {
    if (!Object.hasOwn(values, name)) throw new Error(`${what}: no value for {{${name}}}`);
    return values[name];
  });
  if (/\{\{\s*[\w.-]+\s*\}\}/.test(out)) throw new Error(`${what}: a placeholder is left unfilled`);
  return out;
}

// CommonJS needs no entry of its own: require() takes the "node" ES module
// (require(esm), unflagged from Node 20.19 and 22.12), one instance shared
// with import. But TypeScript in a CommonJS project (module node16/nodenext)
// reads a .d.ts of a "type": "module" package as ESM and refuses to require it
// (TS1479): the "require" types condition points at .d.cts copies whose
// relative imports name the .cjs twins. Every relative specifier must be rewritten.
export function ctsDeclarations(text, what) {
  const out = text.replace(/(from\s+"\.{1,2}\/[^"]+)\.js"/g, '$1.cjs"');
  if (/from\s+"\.{1,2}\/[^"]*\.js"/.test(out) || /import\(\s*"\.{1,2}\//.test(out)) throw new Error(`${what}: a relative import is left unrewritten`);
  return out;
}

function writeCommonJsTypes(pkg) {
  for (const dts of ["common.d.ts", "edge/index.d.ts", "widget/index.d.ts"]) {
    const file = join(pkg, dts);
    writeFileSync(file.replace(/\.d\.ts$/, ".d.cts"), ctsDeclarations(readFileSync(file, "utf8"), dts));
  }
}

function assemble(version) {
  const pkg = join(root, "pkg");
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(join(pkg, "wasm"), { recursive: true });
  const template = join(root, "pkg-template");
  const loaderTemplates = join(template, "loaders");
  cpSync(template, pkg, { recursive: true, filter: (src) => !src.endsWith("package.json") && src !== loaderTemplates });
  for (const { name } of BUILDS) {
    for (const f of [`${name}.js`, `${name}.d.ts`, `${name}_bg.wasm`, `${name}_bg.wasm.d.ts`]) {
      cpSync(join(root, "build", name, f), join(pkg, "wasm", f));
    }
    for (const [file, text] of Object.entries(loaders(name))) writeFileSync(join(pkg, name, file), text);
    for (const file of LOADER_TEMPLATES) {
      writeFileSync(join(pkg, name, file), fill(readFileSync(join(loaderTemplates, file), "utf8"), { BUILD: name }, `pkg-template/loaders/${file}`));
    }
  }
  writeCommonJsTypes(pkg);
  // The edge entry also serves the reader and view-state helpers, from its own wasm.
  const widgetApi = readFileSync(join(template, "widget/api.js"), "utf8");
  writeFileSync(join(pkg, "edge/widget-api.js"), widgetApi.replace('from "../wasm/widget.js"', 'from "../wasm/edge.js"'));
  const manifest = readFileSync(join(template, "package.json"), "utf8").replace("0.0.0-cargo", version);
  writeFileSync(join(pkg, "package.json"), manifest);
  return pkg;
}

// Node loads every ES module file on its own (resolve, read, compile): the
// entry's own modules bundled into one file cut the cost of `import` (measured
// +19 ms -> +11 ms over bare node for import + first seal). common.js and the
// wasm-bindgen glue stay separate modules, shared by every entry a program
// imports: one SealedStateError class, and one wasm instance per build.
async function bundleNodeEntries(pkg) {
  const shared = [join(pkg, "common.js"), ...BUILDS.map(({ name }) => join(pkg, "wasm", `${name}.js`))];
  const shareCommon = {
    name: "share-common-and-wasm",
    setup(build) {
      build.onResolve({ filter: /\.js$/ }, (args) =>
        shared.includes(join(args.resolveDir, args.path)) ? { path: args.path, external: true } : undefined,
      );
    },
  };
  for (const { name } of BUILDS) {
    const entry = join(pkg, name, "node.js");
    await esbuild.build({
      entryPoints: [entry],
      outfile: entry,
      allowOverwrite: true,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node18",
      plugins: [shareCommon],
      logLevel: "warning",
    });
  }
}

function cargoVersion() {
  const m = readFileSync(join(root, "Cargo.toml"), "utf8").match(/^version\s*=\s*"([^"]+)"/m);
  if (!m) throw new Error("no version in Cargo.toml");
  return m[1];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = [];
  for (const build of BUILDS) {
    const wasm = buildWasm(build);
    rows.push({ build: build.name, ...sizes(wasm) });
  }
  const pkg = assemble(cargoVersion());
  await bundleNodeEntries(pkg);
  for (const r of rows) {
    console.log(`${r.build.padEnd(6)} .wasm  ${String(r.raw).padStart(7)} B raw  ${String(r.gzip).padStart(6)} B gzip -9  (${(r.gzip / 1024).toFixed(2)} KiB)`);
  }
  console.log(`package assembled in ${pkg} (npm pack ./pkg makes the tarball)`);
  if (!existsSync(join(pkg, "edge/node.js")) || statSync(join(pkg, "wasm/edge_bg.wasm")).size === 0) process.exit(1);
}
