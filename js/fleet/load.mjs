// The load generator: simulated users, each a real MCP client session
// (@modelcontextprotocol/client over Streamable HTTP, through the front) that
// plays the demo's game: `start`, then moves on empty cells until the game is
// over, then a new game, carrying the token from each result to the next
// call. Every request may land on another instance. Bounded: it stops taking
// new steps at the deadline or after `maxRequests` calls, and each call has a
// timeout.
import { connectClient, tokenOf } from "../lib/mcp-client.mjs";
import { INSTANCE_HEADER } from "./front.mjs";
import { GameModel } from "./game-model.mjs";

/** A small seeded generator (mulberry32), so a run's moves can be replayed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What one run saw. `refusedBy` and `movedBy` count "sealer>opener" instance pairs. */
export function newTally() {
  return {
    calls: 0,
    ok: 0,
    latenciesMs: [],
    refused: 0, // the stable sealed-state error, as the client sees it
    ruleErrors: [], // a tool error that is not a refusal (the user only plays empty cells: none expected)
    transportErrors: [], // a call that threw (no answer, 502, timeout)
    breaks: [], // results that do not continue the user's game
    games: 0,
    finished: 0,
    moves: 0,
    movedBy: {},
    refusedBy: {},
    startedMs: 0,
    elapsedMs: 0,
  };
}

const bump = (table, key) => (table[key] = (table[key] ?? 0) + 1);
const text = (result) => (result?.content ?? []).map((c) => c.text).join("\n");

/**
 * Run `users` users against `url` (the front's /mcp) for `seconds`, at most
 * `maxRequests` tool calls in all, or until `until` (a promise) settles
 * first. `refusal` is the text of the stable sealed-state error.
 * `onCall({ user, tool, state, instance, ok })` is told of every call (`state`:
 * the token a move sent). Returns the tally.
 */
export async function runLoad({ url, refusal, users = 32, seconds = 10, maxRequests = Infinity, until, seed = 1, timeoutMs = 15_000, prefix = "fleet-user", onCall }) {
  const tally = newTally();
  tally.startedMs = performance.now();
  const deadline = tally.startedMs + seconds * 1000;
  let stopped = false;
  const stop = () => (stopped = true);
  until?.then(stop, stop);
  const more = () => !stopped && performance.now() < deadline && tally.calls < maxRequests;

  async function user(i) {
    const random = seededRandom(seed * 1000 + i);
    let instance; // the instance that answered the last HTTP request of this user
    const send = async (input, init) => {
      const response = await fetch(input, init);
      instance = response.headers.get(INSTANCE_HEADER) ?? instance;
      return response;
    };
    const name = `${prefix}-${i}`;
    let session;
    const call = async (tool, args) => {
      tally.calls++;
      const t0 = performance.now();
      try {
        const result = await session.client.callTool({ name: tool, arguments: args }, { timeout: timeoutMs });
        tally.latenciesMs.push(performance.now() - t0);
        onCall?.({ user: name, tool, state: args.state, instance, ok: !result.isError });
        return result;
      } catch (error) {
        tally.transportErrors.push(`${name} ${tool}: ${error?.message ?? error}`);
        onCall?.({ user: name, tool, state: args.state, instance, ok: false });
        return undefined;
      }
    };

    while (more()) {
      if (session === undefined) {
        try {
          session = await connectClient(url, { user: name, name: "fleet", fetch: send });
        } catch (error) {
          tally.transportErrors.push(`${name} connect: ${error?.message ?? error}`);
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
      }
      const started = await call("start", {});
      if (started === undefined) continue;
      if (started.isError) {
        tally.ruleErrors.push(`${name} start: ${text(started)}`);
        continue;
      }
      const broken = GameModel.checkStart(started.structuredContent);
      if (broken) {
        tally.breaks.push(`${name} ${broken}`);
        continue;
      }
      tally.ok++;
      tally.games++;
      const game = new GameModel();
      let token = tokenOf(started);
      let sealer = instance;
      while (game.status === "playing" && more()) {
        const free = game.free();
        const cell = free[Math.floor(random() * free.length)];
        const result = await call("move", { state: token, cell });
        if (result === undefined) break; // no answer: the game is abandoned, counted as a transport error
        const pair = `${sealer}>${instance}`;
        if (result.isError) {
          if (text(result) === refusal) {
            tally.refused++;
            bump(tally.refusedBy, pair);
          } else tally.ruleErrors.push(`${name} move ${cell}: ${text(result)}`);
          break;
        }
        const why = game.advance(cell, result.structuredContent);
        if (why) {
          tally.breaks.push(`${name} ${why}`);
          break;
        }
        tally.ok++;
        tally.moves++;
        bump(tally.movedBy, pair);
        token = tokenOf(result);
        sealer = instance;
      }
      if (game.status !== "playing") tally.finished++;
    }
    await session?.close().catch(() => {});
  }

  await Promise.all(Array.from({ length: users }, (_, i) => user(i)));
  tally.elapsedMs = performance.now() - tally.startedMs;
  return tally;
}

/** The q-quantile (0..1) of `values`, by the nearest rank. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
