// The resolve hook of frameworks-alias.mjs.
const STUB = new URL("./frameworks-stub.js", import.meta.url).href;

export async function resolve(specifier, context, next) {
  return specifier === "mcp-sealed-state" ? { url: STUB, shortCircuit: true } : next(specifier, context);
}
