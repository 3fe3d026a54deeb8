// Node cold start: whole processes, 30 rounds (after 3 warm-up rounds, so the
// file cache is warm), each round spawning every command once. A command's
// cost is the median over the rounds of its time minus bare node's in the
// same round: on 2 shared cores a round's load moves all of its commands
// alike, and medians taken apart swung by 10 ms between runs.
//   bare        node -e 0
//   empty       an empty .mjs: what Node's ESM loader costs before any import
//   one-line    an .mjs importing a one-line package behind an `exports` map:
//               Node's own cost of an ESM server that imports any package, so
//               seal minus this is what this package itself adds
//   import      imports mcp-sealed-state (reads and instantiates the edge wasm)
//   seal        imports it, builds a StateCodec and seals once
//   SDK         imports @modelcontextprotocol/server and mints once with its codec
// The package scripts live in js/out/consumer (written here, removed after),
// so `import "mcp-sealed-state"` resolves the way a user's project does.
//
//   node js/bench/cold-node.mjs [--runs=N] [--against=DIR] [--node=BIN]
// runs it alone; --against adds "import + seal" of another build of the
// package (a pkg/ directory, e.g. of an older commit) to the same rounds, and
// prints the paired difference, this build minus that one.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./harness.mjs";
import { KEY } from "./codecs.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const JS = join(BENCH, "..");
const CONSUMER = join(JS, "out/consumer");
const RUNS = 30;
const WARMUP = 3;
/** `run.mjs --quick`: fewer rounds, for a before/after check on one change. */
export const QUICK_COLD = { runs: 10, warmup: 1 };
const SMALL = "{ board: [0, 0, 0, 0, 0, 0, 0, 0, 0], turn: 1 }";
// The runner, when python3 is there: it spawns from a small process and reads
// each child's CPU time (user + sys over all its threads, getrusage) besides
// the wall time; CPU time is disturbed less by other work on a shared machine.
const RUNNER = `
import json, resource, subprocess, sys, time
cmds, warm, runs = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = [[] for _ in cmds]
for rnd in range(warm + runs):
    for i, c in enumerate(cmds):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(c, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.stderr.write(" ".join(c) + " failed: " + p.stderr.decode())
            sys.exit(1)
        if rnd >= warm:
            out[i].append([wall * 1000, (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000])
print(json.dumps(out))
`;

/** A project of its own with a one-line package behind an `exports` map, and the script that imports it. */
function onePackageProject() {
  const dir = mkdtempSync(join(tmpdir(), "bench-cold-"));
  const pkg = join(dir, "node_modules/one-line");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }));
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "one-line", type: "module", exports: { ".": { node: "./index.js", default: "./index.js" } } }));
  writeFileSync(join(pkg, "index.js"), "export const one = 1;\n");
  writeFileSync(join(dir, "main.mjs"), `import "one-line";\n`);
  return { dir, script: join(dir, "main.mjs") };
}

/** A project whose node_modules/mcp-sealed-state is `pkg` (a symlink), and a script that imports it and seals once. */
function otherBuildProject(pkg) {
  const dir = mkdtempSync(join(tmpdir(), "bench-cold-other-"));
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(pkg, join(dir, "node_modules/mcp-sealed-state"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }));
  writeFileSync(join(dir, "main.mjs"), `import { StateCodec } from "mcp-sealed-state";\nnew StateCodec({ key: ${JSON.stringify(KEY)} }).seal(${SMALL});\n`);
  writeFileSync(join(dir, "cpu.mjs"), CPU_SCRIPT);
  return { dir, script: join(dir, "main.mjs"), cpuScript: join(dir, "cpu.mjs") };
}

// The process's own CPU time (all threads) for import + new StateCodec + the
// first seal: what a loaded machine's scheduling leaves alone.
const CPU_SCRIPT = `const c0 = process.cpuUsage();\nconst { StateCodec } = await import("mcp-sealed-state");\nnew StateCodec({ key: ${JSON.stringify(KEY)} }).seal(${SMALL});\nconst c = process.cpuUsage(c0);\nconsole.log((c.user + c.system) / 1000);\n`;

export function coldNode(log, { runs = RUNS, warmup = WARMUP, node = process.execPath, against } = {}) {
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  const onePackage = onePackageProject();
  // Both builds from projects of the same shape (a symlink each), so that only the builds differ.
  const other = against === undefined ? undefined : otherBuildProject(against);
  const mine = against === undefined ? undefined : otherBuildProject(join(CONSUMER, "node_modules/mcp-sealed-state"));
  const scripts = {
    empty: [CONSUMER, `// nothing: the cost of starting Node's ESM loader\n`],
    import: [CONSUMER, `import "mcp-sealed-state";\n`],
    seal: [CONSUMER, `import { StateCodec } from "mcp-sealed-state";\nnew StateCodec({ key: ${JSON.stringify(KEY)} }).seal(${SMALL});\n`],
    // In-process marks of where the time of `seal` goes (dynamic import, so the marks bracket it).
    steps: [
      CONSUMER,
      `const t0 = performance.now();\nconst { StateCodec } = await import("mcp-sealed-state");\nconst t1 = performance.now();\nconst codec = new StateCodec({ key: ${JSON.stringify(KEY)} });\nconst t2 = performance.now();\ncodec.seal(${SMALL});\nconst t3 = performance.now();\ncodec.seal(${SMALL});\nconst t4 = performance.now();\nconsole.log(JSON.stringify({ import: t1 - t0, construct: t2 - t1, firstSeal: t3 - t2, secondSeal: t4 - t3 }));\n`,
    ],
    sdk: [JS, `import { createRequestStateCodec } from "@modelcontextprotocol/server";\nawait createRequestStateCodec({ key: ${JSON.stringify(KEY)} }).mint(${SMALL});\n`],
  };
  const files = [];
  for (const [name, [dir, text]] of Object.entries(scripts)) {
    const file = join(dir, `.bench-cold-${name}.mjs`);
    writeFileSync(file, text);
    files.push(file);
    scripts[name] = file;
  }
  const commands = [
    { label: "`node -e 0` (bare)", args: ["-e", "0"] },
    { label: "an empty .mjs file (Node's ESM loader, no package)", args: [scripts.empty] },
    { label: "an .mjs importing a one-line package (Node's ESM loader and package resolution)", args: [onePackage.script] },
    { label: "import mcp-sealed-state", args: [scripts.import] },
    { label: "import mcp-sealed-state + new StateCodec + seal once", args: [scripts.seal] },
    { label: "import @modelcontextprotocol/server + createRequestStateCodec + mint once", args: [scripts.sdk] },
  ];
  if (other) {
    commands.push({ label: "import + new StateCodec + seal once, this build (from a project like the other's)", args: [mine.script] });
    commands.push({ label: `import + new StateCodec + seal once, the build in ${against}`, args: [other.script] });
  }
  try {
    // Each must run cleanly before it is timed.
    for (const c of commands) execFileSync(node, c.args, { stdio: ["ignore", "ignore", "inherit"] });
    // Round robin (bare, import, seal, SDK, bare, ...), so that load drifting on a
    // shared machine hits every command alike.
    let tool;
    const py = spawnSync("python3", ["-c", RUNNER, JSON.stringify(commands.map((c) => [node, ...c.args])), String(warmup), String(runs)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1 << 20,
    });
    if (py.status === 0) {
      tool = `interleaved rounds spawned by python3 (wall: perf_counter, CPU: getrusage), ${warmup} warm-up rounds`;
      JSON.parse(py.stdout).forEach((samples, i) => {
        commands[i].times = samples.map((s) => s[0]);
        commands[i].cpu = samples.map((s) => s[1]);
      });
    } else {
      if (!py.error) throw new Error(`cold-start runner failed: ${py.stderr}`);
      tool = `interleaved spawnSync loop, ${warmup} warm-up rounds (no python3: no CPU times)`;
      for (const c of commands) c.times = [];
      for (let round = 0; round < warmup + runs; round++) {
        for (const c of commands) {
          const t0 = performance.now();
          const r = spawnSync(node, c.args, { stdio: "ignore" });
          if (r.status !== 0) throw new Error(`${c.label} exited with ${r.status}`);
          if (round >= warmup) c.times.push(performance.now() - t0);
        }
      }
    }
    const [bare, , onePkg] = commands;
    // Paired by round: `over(c, base)` is the median of c's time minus base's in each round.
    const over = (c, base, key = "times") => median(c[key].map((t, i) => t - base[key][i]));
    for (const c of commands) {
      c.median = median(c.times);
      c.min = Math.min(...c.times);
      c.cpuMedian = c.cpu ? median(c.cpu) : undefined;
      c.overBare = over(c, bare);
      c.cpuOverBare = c.cpu ? over(c, bare, "cpu") : undefined;
      c.overOnePackage = over(c, onePkg);
    }
    // The breakdown: each step's median over as many fresh processes.
    const samples = Array.from({ length: runs }, () => JSON.parse(execFileSync(node, [scripts.steps], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })));
    const steps = Object.fromEntries(Object.keys(samples[0]).map((k) => [k, median(samples.map((s) => s[k]))]));
    log(
      `  ${version} in-process (medians): import() ${steps.import.toFixed(2)} ms, new StateCodec ${steps.construct.toFixed(2)} ms, first seal ${steps.firstSeal.toFixed(2)} ms, second seal ${steps.secondSeal.toFixed(3)} ms`,
    );
    for (const c of commands) log(`  ${c.label}: median ${c.median.toFixed(1)} ms (bare node +${c.overBare.toFixed(1)}), min ${c.min.toFixed(1)} ms, CPU ${c.cpuMedian?.toFixed(0)} ms`);
    const [, esm, , importOnly, ours, sdk, thisBuild, otherBuild] = commands;
    if (otherBuild) {
      const cpuOf = (script) => Number(execFileSync(node, [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
      const pairs = Array.from({ length: runs * 2 }, () => [cpuOf(mine.cpuScript), cpuOf(other.cpuScript)]);
      log(
        `  in-process CPU time of import + new StateCodec + first seal, ${pairs.length} interleaved pairs of fresh processes: this build ${median(pairs.map((p) => p[0])).toFixed(2)} ms, ${against} ${median(pairs.map((p) => p[1])).toFixed(2)} ms, paired difference ${median(pairs.map((p) => p[0] - p[1])).toFixed(2)} ms`,
      );
      const wall = over(thisBuild, otherBuild);
      const cpu = thisBuild.cpu ? over(thisBuild, otherBuild, "cpu") : undefined;
      log(`  this build minus ${against}, import + seal (median of paired rounds): wall ${wall.toFixed(2)} ms${cpu === undefined ? "" : `, CPU ${cpu.toFixed(2)} ms`}`);
    }
    return { version, tool, runs, commands, steps, bare, esm, onePackage: onePkg, importOnly, ours, sdk, thisBuild, otherBuild };
  } finally {
    for (const f of files) rmSync(f, { force: true });
    rmSync(onePackage.dir, { recursive: true, force: true });
    for (const p of [other, mine]) if (p) rmSync(p.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  coldNode(console.log, { runs: Number(arg("runs") ?? RUNS), against: arg("against"), node: arg("node") ?? process.execPath });
}
