// `node --import ./frameworks-alias.mjs`: mcp-sealed-state resolves to
// frameworks-stub.js in that process (js/bench/frameworks.mjs's baseline).
import { register } from "node:module";

register("./frameworks-alias-hooks.mjs", import.meta.url);
