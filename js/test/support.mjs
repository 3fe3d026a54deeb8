// Where the tests find the packed package: js/out/consumer, made by `node js/pack.mjs`.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const JS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT = join(JS_DIR, "..");
export const CONSUMER = join(JS_DIR, "out/consumer");
export const PACKAGE_DIR = join(CONSUMER, "node_modules/mcp-sealed-state");

if (!existsSync(PACKAGE_DIR)) {
  throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
}

// js/pack.mjs writes it: import.meta.resolve from inside the consumer project.
const { resolveImport } = await import(pathToFileURL(join(CONSUMER, "resolve.mjs")).href);

/** Resolve `mcp-sealed-state[/subpath]` as the consumer project's Node would import it (exports, "import" and "node" conditions). */
export function resolvePackage(subpath = "") {
  return fileURLToPath(resolveImport(`mcp-sealed-state${subpath}`));
}

/** Import `mcp-sealed-state[/subpath]` from the consumer project. */
export function importPackage(subpath = "") {
  return import(pathToFileURL(resolvePackage(subpath)).href);
}

/** The packed package's constants.js: the one definition of the defaults and lists its entries re-export. */
export function importPackedConstants() {
  return import(pathToFileURL(join(PACKAGE_DIR, "constants.js")).href);
}

/**
 * The file URL of the edge build's wasm-bindgen glue in the packed package,
 * the module every edge entry instantiates the wasm through. Its `initSync()`,
 * called after the entry has instantiated it, returns the wasm's exports
 * (`memory` among them), which is how a test watches the entry's own memory.
 */
export const EDGE_GLUE_URL = pathToFileURL(join(PACKAGE_DIR, "wasm/edge.js")).href;

/** The linear memory of the wasm instance the edge entry (`mcp-sealed-state`) made. */
export async function edgeWasmMemory() {
  await importPackage();
  const { initSync } = await import(EDGE_GLUE_URL);
  return initSync().memory;
}
