// The hostile-input table (tests/vectors/hostile.json, which tests/hostile.rs
// runs too): each token a client could send, opened every way and read by the
// unverified reader, in every runtime.
import * as edge from "mcp-sealed-state";
import * as widget from "mcp-sealed-state/widget";
import { hostile } from "../tables.js";
import { assert, test } from "../harness.js";
import { runTable } from "../table.js";

test("the hostile-input table: every case, opened every way and read by the reader", async () => {
  const { cases, tokens, failures } = await runTable(hostile, edge, widget);
  assert.ok(cases >= 119 && tokens >= 300, `the table is complete: ${cases} cases, ${tokens} tokens`);
  assert.equal(failures.length, 0, `${failures.length} checks failed:\n${failures.slice(0, 20).join("\n")}`);
});
