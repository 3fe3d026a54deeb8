// Where the tests find the packed package: js/out/consumer, made by `node js/pack.mjs`.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const JS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT = join(JS_DIR, "..");
export const CONSUMER = join(JS_DIR, "out/consumer");
export const PACKAGE_DIR = join(CONSUMER, "node_modules/mcp-sealed-state");

if (!existsSync(PACKAGE_DIR)) {
  throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
}

const requireFromConsumer = createRequire(join(CONSUMER, "package.json"));

/** Resolve `mcp-sealed-state[/subpath]` as the consumer project's Node would (exports, "node" condition). */
export function resolvePackage(subpath = "") {
  return requireFromConsumer.resolve(`mcp-sealed-state${subpath}`);
}

/** Import `mcp-sealed-state[/subpath]` from the consumer project. */
export function importPackage(subpath = "") {
  return import(pathToFileURL(resolvePackage(subpath)).href);
}

// The edge build's Node entry has the wasm-bindgen glue inside it (js/build.mjs:
// one module fewer to load), so a test cannot reach that entry's instance
// through wasm/edge.js. This source, run before the entry is first imported,
// keeps the memory of the first wasm instance made after it in
// `globalThis.entryWasmMemory` (a child process runs it as the first lines of
// its script; a test file through watchEntryWasmMemory below).
export const WATCH_ENTRY_WASM_MEMORY = `{
  const { Instance } = WebAssembly;
  WebAssembly.Instance = function (module, imports) {
    const instance = new Instance(module, imports);
    globalThis.entryWasmMemory ??= instance.exports.memory;
    WebAssembly.Instance = Instance;
    return instance;
  };
}`;

/** Import the edge entry (`mcp-sealed-state`) and the memory of the wasm instance it made. */
export async function importPackageWithWasmMemory() {
  if (globalThis.entryWasmMemory !== undefined) throw new Error("the edge entry's wasm memory is watched once per process");
  new Function(WATCH_ENTRY_WASM_MEMORY)();
  const entry = await importPackage();
  const memory = globalThis.entryWasmMemory;
  if (!(memory instanceof WebAssembly.Memory)) throw new Error("the edge entry made no wasm instance (imported earlier in this process?)");
  return { entry, memory };
}
