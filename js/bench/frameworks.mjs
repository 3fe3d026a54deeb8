// The package inside the frameworks, side by side in one run:
//
// - size: each recipe of js/frameworks/recipes built as a Worker by
//   `wrangler deploy --dry-run --outdir` (nodejs_compat), with our package and
//   with mcp-sealed-state aliased to frameworks-stub.js (the same names, plain
//   JSON): the script and the wasm, gzip -9; the difference is what our
//   package adds to that framework's Worker.
// - speed: one tool call (`open_view` of a token `seal_view` made) over the
//   SDK's client on loopback, against the recipe with our package and against
//   it with the stub, alternating rounds of a fixed count of calls; requests
//   per second per round, the median, and their ratio. Node for mcp-handler,
//   tmcp (Node 20), mcp-use (Node 22); workerd (Miniflare) for agents.
//
//   node js/pack.mjs && node js/frameworks/setup.mjs
//   node js/bench/frameworks.mjs [--calls N] [--rounds N] [--json]
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startNode } from "../frameworks/node-servers.mjs";
import { FRAMEWORKS, setup } from "../frameworks/setup.mjs";
import { startWorker, wranglerBuild } from "../frameworks/workers.mjs";

const BENCH = fileURLToPath(new URL(".", import.meta.url));
const STUB = join(BENCH, "frameworks-stub.js");
const KEY = "frameworks-bench-key: thirty-two bytes and more";
const NODE20 = { bin: process.execPath };
const NODE22 = { bin: join(FRAMEWORKS, "../node_modules/node/bin/node") };
const RECIPES = {
  agents: { file: "recipes/agents.js", runtime: "workerd" },
  "mcp-handler": { file: "recipes/mcp-handler.js", runtime: NODE20 },
  // Its Worker build needs its optional peer @mcp-use/client installed: tested in Node only, no size row.
  "mcp-use": { file: "recipes/mcp-use.js", runtime: NODE22, worker: false },
  tmcp: { file: "recipes/tmcp.js", runtime: NODE20 },
};

function parseArgs(argv) {
  const opts = { calls: 200, rounds: 5, json: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--calls") opts.calls = Number(argv[++i]);
    else if (argv[i] === "--rounds") opts.rounds = Number(argv[++i]);
    else if (argv[i] === "--json") opts.json = true;
    else throw new Error(`unknown argument ${argv[i]} (--calls N, --rounds N, --json)`);
  }
  if (!(opts.calls > 0 && opts.rounds > 0)) throw new Error("--calls and --rounds must be positive");
  return opts;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function sizes() {
  const rows = {};
  for (const [name, { file, worker }] of Object.entries(RECIPES)) {
    if (worker === false) continue;
    const entry = join(FRAMEWORKS, file);
    const ours = await wranglerBuild(entry, `${name}-size`);
    const stub = await wranglerBuild(entry, `${name}-size-stub`, ["--alias", `mcp-sealed-state:${STUB}`]);
    rows[name] = { withPackage: ours.gzipBytes, withStub: stub.gzipBytes, added: ours.gzipBytes - stub.gzipBytes };
  }
  return rows;
}

/** A server of the recipe, `kind` "ours" or "stub": `{ url, stop }`. */
async function server(name, kind) {
  const { file, runtime } = RECIPES[name];
  const env = { STATE_KEY: KEY, NODE_ENV: "production" };
  if (runtime === "workerd") {
    const build = await wranglerBuild(join(FRAMEWORKS, file), `${name}-speed-${kind}`, kind === "stub" ? ["--alias", `mcp-sealed-state:${STUB}`] : []);
    const worker = await startWorker(build, env);
    return { url: worker.url, stop: worker.dispose };
  }
  const args = kind === "stub" ? [...(runtime.args ?? []), "--import", join(BENCH, "frameworks-alias.mjs")] : runtime.args;
  return startNode({ ...runtime, args }, file, env);
}

async function speed(opts) {
  const { connect } = await import("../frameworks/support.mjs"); // the SDK's client from js/frameworks
  const rows = {};
  for (const name of Object.keys(RECIPES)) {
    const servers = { ours: await server(name, "ours"), stub: await server(name, "stub") };
    try {
      const runs = {};
      for (const [kind, s] of Object.entries(servers)) {
        const client = await connect(s.url, "alice");
        const sealed = await client.callTool({ name: "seal_view", arguments: { count: 1 } });
        const token = sealed._meta["ng-mcp-ui/state"];
        const one = async () => {
          const r = await client.callTool({ name: "open_view", arguments: { token } });
          if (r.isError) throw new Error(`${name} ${kind}: ${JSON.stringify(r)}`);
        };
        runs[kind] = { client, one, rps: [] };
        for (let i = 0; i < 50; i++) await one(); // warm-up
      }
      for (let round = 0; round < opts.rounds; round++) {
        for (const run of Object.values(runs)) {
          const t0 = performance.now();
          for (let i = 0; i < opts.calls; i++) await run.one();
          run.rps.push((opts.calls * 1000) / (performance.now() - t0));
        }
      }
      for (const run of Object.values(runs)) await run.client.close();
      const ours = median(runs.ours.rps);
      const stub = median(runs.stub.rps);
      rows[name] = { oursRps: Math.round(ours), stubRps: Math.round(stub), ratio: Number((ours / stub).toFixed(3)) };
    } finally {
      await Promise.allSettled(Object.values(servers).map((s) => s.stop()));
    }
  }
  return rows;
}

const opts = parseArgs(process.argv.slice(2));
setup();
const result = { sizes: await sizes(), speed: await speed(opts), calls: opts.calls, rounds: opts.rounds, node: process.version };
if (opts.json) console.log(JSON.stringify(result));
else {
  console.log("| framework | Worker, gzip: with our package | with the stub | added | open_view req/s: ours | stub | ratio |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const name of Object.keys(RECIPES)) {
    const s = result.sizes[name];
    const p = result.speed[name];
    const size = s ? `${s.withPackage} B | ${s.withStub} B | ${s.added} B` : "(not built) | | ";
    console.log(`| ${name} | ${size} | ${p.oursRps} | ${p.stubRps} | ${p.ratio} |`);
  }
  console.log(`\n${opts.rounds} rounds of ${opts.calls} sequential calls each, alternating; medians. ${result.node}.`);
}
