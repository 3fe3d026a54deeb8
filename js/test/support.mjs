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
