// ViewStateSaveQueue, the Host side of ui/set-view-state: one store at a time,
// coalescing, -32602 / -32603, timeouts; from the packed package.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { eachWidgetEntry, manualStore, tick, track } from "./widget-support.mjs";

eachWidgetEntry(async ({ w }) => {
  const { ViewStateError, ViewStateSaveQueue } = w;

  describe("ViewStateSaveQueue", () => {
    test("a store call that timed out still holds the slot: the next save waits, and is answered -32603 itself while it stays held", async () => {
      const calls = [];
      let release;
      const held = new Promise((r) => (release = r));
      const q = new ViewStateSaveQueue(
        async (state) => {
          calls.push(state);
          if (calls.length === 1) await held;
        },
        { maxBytes: 100, storeTimeoutMs: 1 },
      );
      await assert.rejects(q.save({ n: 1 }), (e) => e instanceof ViewStateError && e.code === -32603);
      await assert.rejects(q.save({ n: 2 }), (e) => e instanceof ViewStateError && e.code === -32603, "the slot is still held");
      assert.deepEqual(calls, [{ n: 1 }], "no second store call overlaps the first");
      release();
      await q.idle();
      await q.save({ n: 3 });
      assert.deepEqual(calls, [{ n: 1 }, { n: 3 }]);
      assert.deepEqual(q.lastSaved, { n: 3 });
    });

    const codeOf = (t) => t.error?.code;

    test("constructor checks its arguments", () => {
      assert.throws(() => new ViewStateSaveQueue(null, { maxBytes: 10 }), TypeError);
      assert.throws(() => new ViewStateSaveQueue(async () => {}), RangeError);
      for (const maxBytes of [0, -5, 1.5, NaN, Infinity, "x"]) {
        assert.throws(() => new ViewStateSaveQueue(async () => {}, { maxBytes }), RangeError, String(maxBytes));
      }
      const q = new ViewStateSaveQueue(async () => {}, { maxBytes: 100 });
      assert.equal(q.lastSaved, null);
      assert.equal(q.maxBytes, 100);
    });

    test("`initial` seeds lastSaved with a copy, with no size limit; it must be an object or null", () => {
      const initial = { tab: "details", big: "x".repeat(500) };
      const q = new ViewStateSaveQueue(async () => {}, { maxBytes: 100, initial });
      assert.deepEqual(q.lastSaved, initial);
      initial.tab = "mutated";
      assert.equal(q.lastSaved.tab, "details");
      assert.equal(new ViewStateSaveQueue(async () => {}, { maxBytes: 100, initial: null }).lastSaved, null);
      assert.throws(
        () => new ViewStateSaveQueue(async () => {}, { maxBytes: 100, initial: [1] }),
        (e) => e.code === -32602,
      );
    });

    test("lastSaved is a copy: mutating it (or the store's argument) changes nothing kept", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const saved = q.save({ n: "A", list: [1] });
      calls[0].state.list.push(99); // the store got its own copy
      calls[0].resolve();
      await saved;
      q.lastSaved.list.push(2);
      assert.deepEqual(q.lastSaved, { n: "A", list: [1] });
    });

    test("idle() resolves only once the running save and the coalesced one behind it are done", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const idleBefore = track(q.idle());
      await tick();
      assert.equal(idleBefore.settled, true, "idle right away when nothing runs");
      track(q.save({ n: "A" }));
      const b = track(q.save({ n: "B" }));
      const idle = track(q.idle());
      calls[0].resolve();
      await tick();
      assert.equal(calls.length, 2, "B is being stored");
      assert.equal(idle.settled, false, "not idle while B is stored");
      calls[1].reject(new Error("disk full"));
      await tick();
      assert.equal(idle.settled, true);
      assert.equal(b.error?.code, -32603);
      assert.deepEqual(q.lastSaved, { n: "A" });
    });

    test("one save: stored at once; settles with the store; lastSaved follows", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const a = track(q.save({ n: "A" }));
      assert.equal(calls.length, 1, "the store is called right away");
      assert.deepEqual(calls[0].state, { n: "A" });
      await tick();
      assert.equal(a.settled, false, "not settled before the store resolves");
      assert.equal(q.lastSaved, null, "lastSaved only after success");
      calls[0].resolve();
      await tick();
      assert.deepEqual(a, { settled: true, value: undefined, error: undefined });
      assert.deepEqual(q.lastSaved, { n: "A" });
    });

    test("A runs; B, C, D arrive: only A then D are stored; B, C, D all settle with D's outcome", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const a = track(q.save({ n: "A" }));
      const b = track(q.save({ n: "B" }));
      const c = track(q.save({ n: "C" }));
      const d = track(q.save({ n: "D" }));
      await tick();
      assert.equal(calls.length, 1, "one store at a time");
      assert.ok(![a, b, c, d].some((t) => t.settled));
      calls[0].resolve();
      await tick();
      assert.equal(a.settled && !a.error, true, "A settles with its own outcome");
      assert.deepEqual(q.lastSaved, { n: "A" });
      assert.equal(calls.length, 2);
      assert.deepEqual(calls[1].state, { n: "D" }, "only the newest queued state is stored");
      assert.ok(![b, c, d].some((t) => t.settled), "B, C, D wait for D's store");
      calls[1].resolve();
      await tick();
      for (const t of [b, c, d]) assert.deepEqual(t, { settled: true, value: undefined, error: undefined });
      assert.deepEqual(q.lastSaved, { n: "D" });
      assert.deepEqual(
        calls.map((x) => x.state.n),
        ["A", "D"],
      );
    });

    test("a failing store rejects all of its batch with -32603; lastSaved stays", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000, initial: { n: "initial" } });
      const a = track(q.save({ n: "A" }));
      const b = track(q.save({ n: "B" }));
      const c = track(q.save({ n: "C" }));
      calls[0].resolve();
      await tick();
      assert.deepEqual(q.lastSaved, { n: "A" });
      calls[1].reject(new Error("disk full"));
      await tick();
      for (const t of [b, c]) {
        assert.equal(t.settled, true);
        assert.ok(t.error instanceof ViewStateError);
        assert.equal(codeOf(t), -32603);
        assert.match(t.error.message, /disk full/);
      }
      assert.equal(a.error, undefined);
      assert.deepEqual(q.lastSaved, { n: "A" }, "the failed state is not the last saved one");
      // The queue keeps working after a failure.
      const e = track(q.save({ n: "E" }));
      assert.equal(calls.length, 3);
      calls[2].resolve();
      await tick();
      assert.equal(e.settled && !e.error, true);
      assert.deepEqual(q.lastSaved, { n: "E" });
    });

    test("the first save failing rejects only itself; the queued batch still runs", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const a = track(q.save({ n: "A" }));
      const b = track(q.save({ n: "B" }));
      calls[0].reject("not an Error");
      await tick();
      assert.equal(codeOf(a), -32603);
      assert.equal(q.lastSaved, null);
      assert.equal(b.settled, false);
      calls[1].resolve();
      await tick();
      assert.equal(b.settled && !b.error, true);
      assert.deepEqual(q.lastSaved, { n: "B" });
    });

    test("a store rejecting with something that cannot be turned into text still gives -32603, and the queue goes on", async () => {
      const unprintable = [
        Symbol("s"),
        Object.create(null),
        null,
        undefined,
        {
          get message() {
            throw new Error("getter");
          },
        },
        new Proxy(
          {},
          {
            get() {
              throw new Error("trap");
            },
            getPrototypeOf() {
              throw new Error("trap");
            },
          },
        ),
      ];
      for (const thrown of unprintable) {
        for (const how of ["reject", "throw"]) {
          const q = new ViewStateSaveQueue(
            how === "reject"
              ? () => Promise.reject(thrown)
              : () => {
                  throw thrown;
                },
            { maxBytes: 100 },
          );
          const a = track(q.save({ n: 1 }));
          const b = track(q.save({ n: 2 }));
          await q.idle();
          await tick();
          assert.equal(codeOf(a), -32603, `${how} ${typeof thrown}`);
          assert.equal(codeOf(b), -32603, `${how} ${typeof thrown}: the coalesced save too`);
          assert.equal(typeof a.error.message, "string");
          assert.equal(q.lastSaved, null);
        }
      }
      // A queue whose store failed that way takes the next save.
      let fail = true;
      const q = new ViewStateSaveQueue(() => (fail ? Promise.reject(Object.create(null)) : Promise.resolve()), { maxBytes: 100 });
      await assert.rejects(q.save({ n: 1 }), (e) => e.code === -32603);
      fail = false;
      await q.save({ n: 2 });
      assert.deepEqual(q.lastSaved, { n: 2 });
    });

    test("a store that never settles gives -32603 after opts.storeTimeoutMs; it holds the slot, so the next save is not stored over it", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 100, storeTimeoutMs: 20 });
      const a = q.save({ n: "A" });
      const b = q.save({ n: "B" });
      await assert.rejects(a, (e) => e instanceof ViewStateError && e.code === -32603 && /did not settle within 20 ms/.test(e.message));
      await assert.rejects(b, (e) => e instanceof ViewStateError && e.code === -32603, "A still holds the slot");
      assert.equal(calls.length, 1, "B never overlapped A");
      calls[0].resolve(); // A's store settles late
      await q.idle();
      const c = q.save({ n: "C" });
      assert.equal(calls.length, 2, "the slot is free again: C is stored at once");
      calls[1].resolve();
      await c;
      assert.deepEqual(q.lastSaved, { n: "C" });
    });

    test("opts.storeTimeoutMs must be a whole number of ms that a timer can hold", () => {
      for (const storeTimeoutMs of [0, -1, 1.5, NaN, Infinity, "100", 2 ** 31]) {
        assert.throws(() => new ViewStateSaveQueue(async () => {}, { maxBytes: 10, storeTimeoutMs }), RangeError, String(storeTimeoutMs));
      }
      new ViewStateSaveQueue(async () => {}, { maxBytes: 10, storeTimeoutMs: 2 ** 31 - 1 });
    });

    test("a store that throws synchronously or returns a non-promise", async () => {
      const q1 = new ViewStateSaveQueue(
        () => {
          throw new Error("sync");
        },
        { maxBytes: 100 },
      );
      await assert.rejects(q1.save({}), (e) => e.code === -32603 && /sync/.test(e.message));
      const q2 = new ViewStateSaveQueue(() => undefined, { maxBytes: 100 });
      await q2.save({ ok: 1 });
      assert.deepEqual(q2.lastSaved, { ok: 1 });
    });

    test("oversize and non-object states are refused at once with -32602; the batch and lastSaved are untouched", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 64 });
      const a = track(q.save({ n: "A" }));
      calls[0].resolve();
      await tick();
      const b = track(q.save({ n: "B" })); // running
      const refusedStates = [
        { blob: "x".repeat(100) },
        { blob: "é".repeat(30) }, // 60 chars of JSON text, 71 bytes
        { blob: "x".repeat(10 * 1024 * 1024) },
        [1],
        "state",
        5,
        undefined,
        () => 1,
      ];
      const r = refusedStates.map((s) => track(q.save(s)));
      await tick();
      for (const [i, t] of r.entries()) {
        assert.equal(t.settled, true, `refused at once #${i}`);
        assert.ok(t.error instanceof ViewStateError, `#${i}`);
        assert.equal(codeOf(t), -32602, `#${i}`);
      }
      assert.equal(calls.length, 2, "the store never sees a refused state");
      assert.equal(b.settled, false);
      assert.deepEqual(q.lastSaved, { n: "A" });
      calls[1].resolve();
      await tick();
      assert.deepEqual(q.lastSaved, { n: "B" });
      assert.equal(a.error ?? b.error, undefined);
      assert.equal(calls.length, 2, "nothing queued behind B");
    });

    test("a refused save between two good ones does not break coalescing", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 64 });
      track(q.save({ n: "A" }));
      const b = track(q.save({ n: "B" }));
      const big = track(q.save({ blob: "x".repeat(100) }));
      const c = track(q.save({ n: "C" }));
      calls[0].resolve();
      await tick();
      assert.deepEqual(calls[1].state, { n: "C" });
      calls[1].resolve();
      await tick();
      assert.equal(codeOf(big), -32602);
      assert.equal(b.settled && !b.error && c.settled && !c.error, true);
      assert.deepEqual(q.lastSaved, { n: "C" });
    });

    test("null clears", async () => {
      const saved = [];
      const q = new ViewStateSaveQueue(async (s) => void saved.push(s), { maxBytes: 10, initial: { a: 1 } });
      await q.save(null);
      assert.deepEqual(saved, [null]);
      assert.equal(q.lastSaved, null);
    });

    test("the stored value is a snapshot: later changes by the caller are not stored", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const a = { n: "A", list: [1] };
      const b = { n: "B", list: [2] };
      q.save(a);
      q.save(b);
      a.n = "A!";
      a.list.push(9);
      b.n = "B!";
      b.list.push(9);
      assert.deepEqual(calls[0].state, { n: "A", list: [1] });
      calls[0].resolve();
      await tick();
      assert.deepEqual(calls[1].state, { n: "B", list: [2] }, "queued states are snapshots too");
      calls[1].resolve();
      await tick();
      assert.deepEqual(q.lastSaved, { n: "B", list: [2] });
    });

    test("saves after a batch are ordered behind it (A, then B; C arrives during B)", async () => {
      const { store, calls } = manualStore();
      const q = new ViewStateSaveQueue(store, { maxBytes: 1000 });
      const a = track(q.save({ n: "A" }));
      const b = track(q.save({ n: "B" }));
      calls[0].resolve();
      await tick();
      const c = track(q.save({ n: "C" }));
      await tick();
      assert.equal(calls.length, 2, "C waits for B");
      calls[1].resolve();
      await tick();
      assert.equal(calls.length, 3);
      assert.equal(b.settled, true);
      assert.equal(c.settled, false);
      calls[2].resolve();
      await tick();
      assert.deepEqual(
        calls.map((x) => x.state.n),
        ["A", "B", "C"],
      );
      assert.ok(a.settled && c.settled);
    });

    test("after the queue is idle, the next save is stored at once", async () => {
      const saved = [];
      const q = new ViewStateSaveQueue(async (s) => void saved.push(s.n), { maxBytes: 100 });
      await Promise.all([q.save({ n: 1 }), q.save({ n: 2 }), q.save({ n: 3 })]);
      await q.save({ n: 4 });
      assert.deepEqual(saved, [1, 3, 4]);
    });
  });
});
