// Entry for the command-line runtimes (node, deno, bun): runs the suite and
// prints where the runtime resolved the package and the summary, one JSON
// line, marked so the runner finds them among anything else the runtime prints.
import { run } from "./index.js";

console.log(`SUITE-ENTRY ${import.meta.resolve("mcp-sealed-state")}`);
const summary = await run();
console.log(`SUITE-SUMMARY ${JSON.stringify(summary)}`);
