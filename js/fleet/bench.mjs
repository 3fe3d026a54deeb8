// The fleet's figures (docs/development.md): the same fleet run with this
// package's StateCodec in every instance and with the SDK's own
// createRequestStateCodec in every instance (STATE_CODEC=sdk), side by side in
// alternating rounds; then how long a rolling restart takes, and where clock
// skew starts to refuse tokens. Writes the "Fleet" section of
// js/bench/RESULTS.md (the rest of that file is left as it is).
//
//   node js/fleet/bench.mjs [--users N] [--seconds S] [--rounds N] [--instances N] [--no-write]
//   (by default 32 users, 15 s a run, 5 rounds, 3 instances)
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker } from "../lib/servers.mjs";
import { importPackage } from "../test/support.mjs";
import { instanceName, startFleet } from "./fleet.mjs";
import { quantile, runLoad } from "./load.mjs";

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "../bench/RESULTS.md");
const HEADING = "### Fleet";
const KEY = "fleet bench key: thirty-two bytes or more";
const NEXT_KEY = "fleet bench key: the next one, 32 bytes+";
const CODECS = { ours: "mcp-sealed-state", sdk: "sdk" };
const WARMUP_SECONDS = 2;
const SKEW_TTL = 2;
const SKEW_LEEWAY = 5;

function parseArgs(argv) {
  const opts = { users: 32, seconds: 15, rounds: 5, instances: 3, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const whole = () => {
      const v = argv[++i];
      if (!/^\d+$/.test(v ?? "") || Number(v) < 1) throw new Error(`${arg} needs a positive whole number`);
      return Number(v);
    };
    if (arg === "--users") opts.users = whole();
    else if (arg === "--seconds") opts.seconds = whole();
    else if (arg === "--rounds") opts.rounds = whole();
    else if (arg === "--instances") opts.instances = whole();
    else if (arg === "--no-write") opts.write = false;
    else throw new Error(`unknown argument ${arg} (use --users N, --seconds S, --rounds N, --instances N, --no-write)`);
  }
  return opts;
}

const log = (...args) => console.error("[fleet bench]", ...args);
const mib = (kib) => (kib === undefined ? "gone" : (kib / 1024).toFixed(1));
const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);

/** Errors of a run by reason: the client's (refusal, transport, rule, broken game) and the instances' logged refusal reasons. */
function errorsOf(tally, logged) {
  const out = {};
  for (const [reason, n] of Object.entries(logged)) out[`refused: ${reason}`] = n;
  const unexplained = tally.refused - sum(logged);
  if (unexplained > 0) out["refused: reason not logged"] = unexplained;
  if (tally.transportErrors.length) out.transport = tally.transportErrors.length;
  if (tally.ruleErrors.length) out.rule = tally.ruleErrors.length;
  if (tally.breaks.length) out["broken game"] = tally.breaks.length;
  return out;
}

/** One timed run of a fresh fleet, every instance on `codec`: a warm-up, then `seconds` of load. */
async function throughputRun({ build, codec, refusal, opts, round }) {
  const fleet = await startFleet({ build, specs: Array.from({ length: opts.instances }, () => ({ key: KEY, codec })) });
  try {
    await runLoad({ url: fleet.mcpUrl, refusal, users: opts.users, seconds: WARMUP_SECONDS, prefix: `warm-${round}` });
    const memoryStart = fleet.memory();
    const since = fleet.logs.length;
    const httpBefore = sum(fleet.front.stats.served);
    const tally = await runLoad({ url: fleet.mcpUrl, refusal, users: opts.users, seconds: opts.seconds, seed: round + 1, prefix: `user-${round}` });
    const http = sum(fleet.front.stats.served) - httpBefore;
    await new Promise((r) => setTimeout(r, 300)); // the last log lines
    const memoryEnd = fleet.memory();
    const cpu = memoryEnd.reduce((n, m, i) => n + m.cpuSeconds - memoryStart[i].cpuSeconds, 0);
    return {
      cpuMsPerCall: (cpu * 1000) / tally.calls,
      calls: tally.calls,
      seconds: tally.elapsedMs / 1000,
      callsPerSecond: tally.calls / (tally.elapsedMs / 1000),
      httpPerSecond: http / (tally.elapsedMs / 1000),
      p50: quantile(tally.latenciesMs, 0.5),
      p99: quantile(tally.latenciesMs, 0.99),
      games: tally.games,
      moves: tally.moves,
      errors: errorsOf(tally, fleet.reasons(since)),
      memory: memoryStart.map((m, i) => ({ instance: m.instance, startKiB: m.nowKiB, endKiB: memoryEnd[i].nowKiB })),
    };
  } finally {
    await fleet.close();
  }
}

/** SECURITY.md's rotation under load, each restart timed: [old] → [old, new] → [new, old] → ttl + leeway → [new]. */
async function rotationRun({ build, refusal, opts }) {
  const ttlSeconds = 3;
  const leewaySeconds = 1;
  const spec = (key) => ({ key, ttlSeconds, leewaySeconds });
  const names = Array.from({ length: opts.instances }, (_, i) => instanceName(i));
  const fleet = await startFleet({ build, specs: names.map(() => spec(KEY)) });
  try {
    const restartsMs = [];
    let done;
    const until = new Promise((r) => (done = r));
    const t0 = performance.now();
    const rotation = (async () => {
      for (const keys of [[KEY, NEXT_KEY], [NEXT_KEY, KEY], "wait", [NEXT_KEY]]) {
        if (keys === "wait") {
          await new Promise((r) => setTimeout(r, (ttlSeconds + leewaySeconds + 1) * 1000));
          continue;
        }
        for (const name of names) {
          const t = performance.now();
          await fleet.restart(name, spec(keys));
          restartsMs.push(performance.now() - t);
        }
      }
      done();
    })();
    const since = fleet.logs.length;
    const tally = await runLoad({ url: fleet.mcpUrl, refusal, users: opts.users, seconds: 120, until, prefix: "rotation" });
    await rotation;
    return { ttlSeconds, leewaySeconds, totalMs: performance.now() - t0, restartsMs, calls: tally.calls, errors: errorsOf(tally, fleet.reasons(since)) };
  } finally {
    await fleet.close();
  }
}

/** Refusals at clock offsets +S, 0, -S for each S (ttl SKEW_TTL, leeway SKEW_LEEWAY), 8 users, 3 s each. */
async function skewRun({ build, refusal }) {
  const rows = [];
  for (const s of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const fleet = await startFleet({ build, specs: [s, 0, -s].map((skewSeconds) => ({ key: KEY, ttlSeconds: SKEW_TTL, leewaySeconds: SKEW_LEEWAY, skewSeconds })) });
    try {
      const since = fleet.logs.length;
      const tally = await runLoad({ url: fleet.mcpUrl, refusal, users: 8, seconds: 3, prefix: `skew-${s}` });
      await new Promise((r) => setTimeout(r, 300));
      rows.push({ s, moves: tally.moves + tally.refused, refused: tally.refused, refusedBy: tally.refusedBy, errors: errorsOf(tally, fleet.reasons(since)) });
      log(`skew ±${s} s: ${tally.refused} of ${tally.moves + tally.refused} moves refused`);
    } finally {
      await fleet.close();
    }
  }
  return rows;
}

// The middle value; of an even count, the mean of the two middle ones.
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n, digits = 1) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const errorsText = (errors) =>
  Object.keys(errors).length === 0
    ? "none"
    : Object.entries(errors)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");

function report({ opts, runs, rotation, skew, machine, startedAt, seconds }) {
  const by = (codec, key) => runs.filter((r) => r.codec === codec).map((r) => r[key]);
  const row = (label, key, digits, better) => {
    const ours = by("ours", key);
    const sdk = by("sdk", key);
    // Each round's two runs are back to back, so their ratio cancels most of the drift in the machine's load.
    const ratios = ours.map((o, i) => o / sdk[i]);
    return `| ${label} | ${fmt(median(ours), digits)} | ${fmt(median(sdk), digits)} | ${fmt(median(ratios), 2)}× (${fmt(Math.min(...ratios), 2)} to ${fmt(Math.max(...ratios), 2)}) ${better} |`;
  };
  const lines = [
    HEADING,
    "",
    `\`node js/fleet/bench.mjs\` (${Math.round(seconds)} s, ${startedAt}): ${opts.instances} instances of the demo server (www/server), each its own workerd (Miniflare ${machine.miniflare}), behind js/fleet's round-robin front on loopback; ${opts.users} simulated users, each a real MCP client session (@modelcontextprotocol/client, Streamable HTTP, the 2025 handshake) playing tic-tac-toe: \`start\`, then moves until the game ends, every call possibly on another instance. A run is a fresh fleet, ${WARMUP_SECONDS} s of warm-up, then ${opts.seconds} s measured; ${opts.rounds} rounds, the two codecs alternating; a figure is the median over rounds, a ratio the median of the rounds' own ratios (its range in brackets). Machine: ${machine.cpu}, ${machine.cores} cores shared by the load generator, the front and the instances (so this is the whole loopback system's throughput, not one server's); load average ${machine.loadBefore} before, ${machine.loadAfter} after. The wall figures (calls/s, latency) move with the machine's other load; workerd's CPU per call (utime + stime of the instances' processes over the measured window, from /proc, divided by the tool calls) much less, though it too grows on a busy machine.`,
    "",
    "`ours`: StateCodec (a view token with the secret part: the game id and move count encrypted); `sdk`: `STATE_CODEC=sdk`, `@modelcontextprotocol/server`'s own `createRequestStateCodec` behind the same seam (the same view token, no secret part).",
    "",
    "| figure | ours | sdk | ours / sdk |",
    "|---|---:|---:|---:|",
    row("tool calls/s, whole fleet", "callsPerSecond", 1, "(higher is better)"),
    row("HTTP requests/s at the front (calls, handshakes)", "httpPerSecond", 1, "(higher is better)"),
    row("p50 latency of a tool call, ms", "p50", 2, "(lower is better)"),
    row("p99 latency of a tool call, ms", "p99", 2, "(lower is better)"),
    row("workerd CPU per tool call, ms (all instances)", "cpuMsPerCall", 2, "(lower is better)"),
    "",
    "| run | codec | tool calls | calls/s | p50 ms | p99 ms | CPU ms / call | games | errors by reason | workerd RSS per instance, start → end (MiB) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ...runs.map(
      (r) =>
        `| ${r.round} | ${r.codec} | ${r.calls} | ${fmt(r.callsPerSecond)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuMsPerCall, 2)} | ${r.games} | ${errorsText(r.errors)} | ${r.memory.map((m) => `${m.instance} ${mib(m.startKiB)} → ${mib(m.endKiB)}`).join("; ")} |`,
    ),
    "",
    `Rolling rotation under the same load (SECURITY.md's steps, ttl ${rotation.ttlSeconds} s, leeway ${rotation.leewaySeconds} s, one instance at a time taken out of the front, stopped and started with its next key list): ${rotation.restartsMs.length} restarts, each ${fmt(Math.min(...rotation.restartsMs) / 1000, 2)} to ${fmt(Math.max(...rotation.restartsMs) / 1000, 2)} s (median ${fmt(median(rotation.restartsMs) / 1000, 2)} s); the whole rotation ${fmt(rotation.totalMs / 1000)} s, of which the wait of step 4 is ttl + leeway + 1 s; ${rotation.calls} tool calls, errors: ${errorsText(rotation.errors)}.`,
    "",
    `Clock skew (instances at +S, 0 and -S seconds through CLOCK_SKEW_SECONDS, ttl ${SKEW_TTL} s, leeway ${SKEW_LEEWAY} s, 8 users for 3 s each): \`exp\` is the sealer's whole second plus ttl, and a token is refused once the opener's whole second passes exp + leeway. Opened t seconds after it was sealed on a clock D seconds ahead of its sealer's, it is refused once D + t passes ttl + leeway (${SKEW_TTL + SKEW_LEEWAY} s here), give or take the rounding to whole seconds; a clock behind the sealer's refuses nothing.`,
    "",
    "| S | clocks apart (max) | moves | refused | refused pairs (sealer>opener) | errors by reason |",
    "|---:|---:|---:|---:|---|---|",
    ...skew.map((r) => `| ${r.s} | ${2 * r.s} s | ${r.moves} | ${r.refused} | ${Object.keys(r.refusedBy).sort().join(", ") || "none"} | ${errorsText(r.errors)} |`),
    "",
  ];
  return lines.join("\n");
}

function writeSection(section) {
  const text = readFileSync(RESULTS, "utf8");
  const at = text.indexOf(`\n${HEADING}\n`);
  let out;
  if (at === -1) out = `${text.trimEnd()}\n\n${section}`;
  else {
    const rest = text.slice(at + 1 + HEADING.length);
    const next = rest.search(/\n##+ /);
    out = text.slice(0, at + 1) + section + (next === -1 ? "" : rest.slice(next + 1));
  }
  writeFileSync(RESULTS, out.endsWith("\n") ? out : `${out}\n`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { SEALED_STATE_INVALID_MESSAGE: refusal } = await importPackage();
  const t0 = performance.now();
  const startedAt = new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC";
  const { version: miniflare } = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../node_modules/miniflare/package.json"), "utf8"));
  const machine = { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, miniflare, loadBefore: loadavg()[0].toFixed(2) };
  const build = await buildWorker();
  const runs = [];
  for (let round = 1; round <= opts.rounds; round++) {
    const order = round % 2 === 1 ? ["ours", "sdk"] : ["sdk", "ours"];
    for (const codec of order) {
      const run = await throughputRun({ build, codec: CODECS[codec], refusal, opts, round });
      runs.push({ round, codec, ...run });
      log(
        `round ${round} ${codec}: ${fmt(run.callsPerSecond)} calls/s, ${fmt(run.cpuMsPerCall, 2)} workerd CPU ms/call, p50 ${fmt(run.p50, 2)} ms, p99 ${fmt(run.p99, 2)} ms, errors ${errorsText(run.errors)}`,
      );
    }
  }
  const rotation = await rotationRun({ build, refusal, opts });
  log(`rotation: ${fmt(rotation.totalMs / 1000)} s, errors ${errorsText(rotation.errors)}`);
  const skew = await skewRun({ build, refusal });
  machine.loadAfter = loadavg()[0].toFixed(2);
  const section = report({ opts, runs, rotation, skew, machine, startedAt, seconds: (performance.now() - t0) / 1000 });
  console.log(section);
  if (opts.write) {
    writeSection(section);
    log(`wrote the "${HEADING.slice(4)}" section of ${RESULTS}`);
  }
}

main().catch((error) => {
  console.error(error?.stack ?? error);
  process.exit(1);
});
