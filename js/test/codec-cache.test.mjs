// The codec cache: least recently used, so a hot tenant among many one-off
// tenants stays built (first in, first out would rebuild it every 16 one-off
// tenants: 62 times in 1,000). Builds are counted through the wasm glue's
// WasmCodec.configError getter, which the cache reads once per build.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EDGE_GLUE_URL, importPackage } from "./support.mjs";

const { StateCodec } = await importPackage();
const { WasmCodec } = await import(EDGE_GLUE_URL);

let builds = 0;
const getter = Object.getOwnPropertyDescriptor(WasmCodec.prototype, "configError");
Object.defineProperty(WasmCodec.prototype, "configError", {
  ...getter,
  get() {
    builds++;
    return getter.get.call(this);
  },
});

const keyOf = (name) => `cache-test-${name}: at least thirty-two bytes long`;
const sealWith = (name) => new StateCodec({ key: keyOf(name) }).seal(1);

test("a hot tenant among 1,000 one-off tenants is built once (hits move the entry)", () => {
  sealWith("hot");
  builds = 0;
  for (let i = 0; i < 1000; i++) {
    sealWith(`once-${i}`);
    sealWith("hot");
  }
  assert.equal(builds, 1000, "one build per one-off tenant, none for the hot one");
});

test("17 tenants in turn (and up to 64) never rebuild; 65 in turn rebuild every call", () => {
  for (const [tenants, rebuilds] of [
    [17, 0],
    [64, 0],
    [65, 65 * 3],
  ]) {
    for (let t = 0; t < tenants; t++) sealWith(`turn-${tenants}-${t}`);
    builds = 0;
    for (let round = 0; round < 3; round++) for (let t = 0; t < tenants; t++) sealWith(`turn-${tenants}-${t}`);
    assert.equal(builds, rebuilds, `${tenants} tenants`);
  }
});

test("a kept codec whose entry was evicted builds it again and still opens its tokens", () => {
  const kept = new StateCodec({ key: keyOf("kept") });
  const token = kept.seal({ n: 1 });
  for (let i = 0; i < 200; i++) sealWith(`evict-${i}`);
  builds = 0;
  assert.deepEqual(kept.open(token), { n: 1 });
  assert.equal(builds, 1);
});
