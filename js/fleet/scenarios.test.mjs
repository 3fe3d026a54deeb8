// The fleet under load, short runs (./scripts/test): 3 instances of the demo
// server in real workerd behind a round-robin front, 32 simulated users (real
// MCP client sessions) playing the game with no affinity. Each scenario
// asserts its expected figures; js/fleet/bench.mjs is the longer run that
// measures. Needs the packed package and the built View (see README.md).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildWorker } from "../lib/servers.mjs";
import { importPackage } from "../test/support.mjs";
import { startFleet } from "./fleet.mjs";
import { runLoad, seededRandom } from "./load.mjs";
import { alive } from "./processes.mjs";

const { SEALED_STATE_INVALID_MESSAGE, StateCodec } = await importPackage();

const OLD = "fleet scenario key: the old one, 32 bytes+";
const NEW = "fleet scenario key: the new one, 32 bytes+";
const USERS = 32;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// No scenario may run on: its load stops by itself well before this.
const BOUND = { timeout: 90_000 };

let build;
const fleets = new Set();
before(async () => {
  build = await buildWorker();
});
after(async () => {
  await Promise.allSettled([...fleets].map((f) => f.close()));
});

async function fleetOf(specs, options) {
  const fleet = await startFleet({ specs, build, ...options });
  fleets.add(fleet);
  return fleet;
}
async function closeFleet(fleet) {
  await fleet.close();
  fleets.delete(fleet);
}

const load = (fleet, options) => runLoad({ url: fleet.mcpUrl, refusal: SEALED_STATE_INVALID_MESSAGE, users: USERS, ...options });

/** Refusals reach the instances' logs a little after the answers; wait until `count` are there (at most 2 s). */
async function loggedReasons(fleet, since, count) {
  for (let i = 0; i < 40; i++) {
    const reasons = fleet.reasons(since);
    if (Object.values(reasons).reduce((a, b) => a + b, 0) >= count) return reasons;
    await sleep(50);
  }
  return fleet.reasons(since);
}

/** Nothing went wrong that a user could see: no transport error, no rule error, no broken game. */
function assertClean(tally) {
  assert.deepEqual(tally.transportErrors, [], "every call had an answer");
  assert.deepEqual(tally.ruleErrors, [], "no tool error but refusals");
  assert.deepEqual(tally.breaks, [], "every result continued its game");
  assert.ok(tally.moves > USERS, `moves played: ${tally.moves}`);
}

/** Pairs "sealer>opener" of two different instances. */
const crossings = (table) => Object.entries(table).filter(([pair]) => pair.split(">")[0] !== pair.split(">")[1]);

test("steady load: 32 users on 3 instances, zero errors, every game continuous, games cross instances", BOUND, async () => {
  const fleet = await fleetOf([{ key: OLD }, { key: OLD }, { key: OLD }]);
  try {
    const since = fleet.logs.length;
    const tally = await load(fleet, { seconds: 4 });
    assertClean(tally);
    assert.equal(tally.refused, 0);
    assert.deepEqual(fleet.reasons(since), {});
    assert.equal(fleet.front.stats.failed, 0);
    assert.ok(tally.finished > 0, "games were played to their end");
    for (const name of ["a", "b", "c"]) assert.ok(fleet.front.stats.served[name] > 0, `instance ${name} served`);
    assert.ok(crossings(tally.movedBy).length >= 6, `tokens moved between every pair: ${JSON.stringify(tally.movedBy)}`);
  } finally {
    await closeFleet(fleet);
  }
});

describe("rolling key rotation by SECURITY.md's steps, under load", () => {
  const TTL = 3;
  const LEEWAY = 1;
  const spec = (key) => ({ key, ttlSeconds: TTL, leewaySeconds: LEEWAY });
  const names = ["a", "b", "c"];

  test("[old] → [old, new] → [new, old] → ttl + leeway → [new], one instance at a time: no genuine token refused", BOUND, async () => {
    const fleet = await fleetOf(names.map(() => spec(OLD)));
    const oldCodec = new StateCodec({ key: OLD, leewaySeconds: 3600 });
    try {
      let phase = "old";
      const sent = {}; // phase -> { old, new }: which key sealed the tokens the moves carried
      const keyOf = (token, user) => {
        try {
          oldCodec.open(token, { bind: user });
          return "old";
        } catch {
          return "new";
        }
      };
      const onCall = ({ user, tool, state }) => {
        if (tool !== "move") return;
        const byKey = (sent[phase] ??= { old: 0, new: 0 });
        byKey[keyOf(state, user)]++;
      };
      let done;
      const until = new Promise((r) => (done = r));
      const rotation = (async () => {
        const step = async (name, keys) => {
          await fleet.restart(name, spec(keys));
          await sleep(200);
        };
        await sleep(700);
        phase = "[old, new]";
        for (const name of names) await step(name, [OLD, NEW]);
        phase = "[new, old]";
        for (const name of names) await step(name, [NEW, OLD]);
        // SECURITY.md step 4: every old token has expired ttl + leeway after step 3 reached every instance.
        phase = "waiting";
        await sleep((TTL + LEEWAY + 1) * 1000);
        phase = "[new]";
        for (const name of names) await step(name, [NEW]);
        await sleep(700);
        done();
      })();
      const since = fleet.logs.length;
      const tally = await load(fleet, { seconds: 30, until, onCall });
      await rotation;
      assertClean(tally);
      assert.equal(tally.refused, 0, `refused by pair: ${JSON.stringify(tally.refusedBy)}`);
      assert.deepEqual(fleet.reasons(since), {});
      // The rotation was exercised: old tokens opened while new ones were being sealed, and only new ones at the end.
      assert.ok(sent["[new, old]"]?.old > 0 && sent["[new, old]"]?.new > 0, JSON.stringify(sent));
      assert.equal(sent["[new]"]?.old, 0, JSON.stringify(sent));
      assert.ok(sent["[new]"]?.new > 0, JSON.stringify(sent));
      for (const name of names) assert.deepEqual(fleet.instances.get(name).spec.key, [NEW]);
    } finally {
      await closeFleet(fleet);
    }
  });

  test("negative control: step 2 skipped ([new, old] on one instance while the others hold [old]): refusals, every one for the key (mac)", BOUND, async () => {
    const fleet = await fleetOf(names.map(() => spec(OLD)));
    try {
      const since = fleet.logs.length;
      let done;
      const until = new Promise((r) => (done = r));
      const skip = (async () => {
        await sleep(500);
        await fleet.restart("a", spec([NEW, OLD]));
        await sleep(2000);
        done();
      })();
      const tally = await load(fleet, { seconds: 30, until });
      await skip;
      assert.deepEqual(tally.transportErrors, []);
      assert.deepEqual(tally.ruleErrors, []);
      assert.deepEqual(tally.breaks, []);
      assert.ok(tally.refused > 0, "the skipped step shows as refusals");
      // Every refusal is a token a sealed with the new key, opened by b or c, which do not hold it.
      for (const pair of Object.keys(tally.refusedBy)) assert.match(pair, /^a>[bc]$/);
      assert.deepEqual(await loggedReasons(fleet, since, tally.refused), { mac: tally.refused });
    } finally {
      await closeFleet(fleet);
    }
  });
});

test("an instance killed with SIGKILL under load: its requests retried on the others, no game loses a move; it comes back", BOUND, async () => {
  const fleet = await fleetOf([{ key: OLD }, { key: OLD }, { key: OLD }]);
  try {
    let done;
    const until = new Promise((r) => (done = r));
    let servedAfterRevive;
    const chaos = (async () => {
      await sleep(1200);
      const pid = fleet.kill("b");
      await sleep(100);
      assert.equal(alive(pid), false, "workerd b is gone");
      await sleep(1500);
      const revived = await fleet.revive("b");
      assert.notEqual(revived.pid, pid);
      const before = fleet.front.stats.served.b ?? 0;
      await sleep(1200);
      servedAfterRevive = (fleet.front.stats.served.b ?? 0) - before;
      done();
    })();
    const tally = await load(fleet, { seconds: 30, until });
    await chaos;
    assertClean(tally);
    assert.equal(tally.refused, 0);
    assert.ok(fleet.front.stats.retried.b > 0, `requests to the dead instance were retried: ${JSON.stringify(fleet.front.stats)}`);
    assert.equal(fleet.front.stats.failed, 0);
    assert.ok(servedAfterRevive > 0, "the instance serves again once it is back");
  } finally {
    await closeFleet(fleet);
  }
});

describe("clock skew: instances at +S, 0 and -S seconds (the codec's clock), ttl 2 s, leeway 5 s", () => {
  const TTL = 2;
  const LEEWAY = 5;
  const skewed = (s) => [s, 0, -s].map((skewSeconds) => ({ key: OLD, ttlSeconds: TTL, leewaySeconds: LEEWAY, skewSeconds }));

  test("S = 2 (inside the leeway; clocks 4 s apart): zero refusals", BOUND, async () => {
    const fleet = await fleetOf(skewed(2));
    try {
      const since = fleet.logs.length;
      const tally = await load(fleet, { seconds: 3 });
      assertClean(tally);
      assert.equal(tally.refused, 0, JSON.stringify(tally.refusedBy));
      assert.deepEqual(fleet.reasons(since), {});
    } finally {
      await closeFleet(fleet);
    }
  });

  test("S = 8 (beyond it): refusals, every one `expired` (the server's log; the client sees the one message)", BOUND, async () => {
    const fleet = await fleetOf(skewed(8));
    try {
      const since = fleet.logs.length;
      const tally = await load(fleet, { seconds: 3 });
      assert.deepEqual(tally.transportErrors, []);
      assert.deepEqual(tally.ruleErrors, []);
      assert.deepEqual(tally.breaks, []);
      assert.ok(tally.refused > 0);
      assert.deepEqual(await loggedReasons(fleet, since, tally.refused), { expired: tally.refused });
      // Only a token opened on a clock ahead of its sealer's is refused: a (+8) opens everything.
      for (const pair of Object.keys(tally.refusedBy)) assert.match(pair, /^(b>a|c>a|c>b)$/);
    } finally {
      await closeFleet(fleet);
    }
  });
});

test("mixed fleet: one instance on the SDK's createRequestStateCodec, two on StateCodec, one key, the front picking at random: tokens flow both ways", BOUND, async () => {
  const fleet = await fleetOf([{ key: OLD, codec: "sdk" }, { key: OLD }, { key: OLD }], { strategy: "random", random: seededRandom(43) });
  try {
    const health = await Promise.all(["a", "b", "c"].map(async (n) => (await fetch(fleet.instances.get(n).server.healthUrl)).json()));
    assert.deepEqual(
      health.map((h) => h.codec),
      ["sdk", "mcp-sealed-state", "mcp-sealed-state"],
    );
    const since = fleet.logs.length;
    const tally = await load(fleet, { seconds: 4 });
    assertClean(tally);
    assert.equal(tally.refused, 0, JSON.stringify(tally.refusedBy));
    assert.deepEqual(fleet.reasons(since), {});
    const moved = (pattern) =>
      Object.entries(tally.movedBy)
        .filter(([pair]) => pattern.test(pair))
        .reduce((n, [, c]) => n + c, 0);
    assert.ok(moved(/^a>[bc]$/) > 0, `SDK-sealed tokens opened by ours: ${JSON.stringify(tally.movedBy)}`);
    assert.ok(moved(/^[bc]>a$/) > 0, `our tokens opened by the SDK's codec: ${JSON.stringify(tally.movedBy)}`);
  } finally {
    await closeFleet(fleet);
  }
});
