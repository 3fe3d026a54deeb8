// Bundling a worker for real workerd (Miniflare) against the PACKED package,
// shared by the demo server (./servers.mjs), the soak (js/soak.mjs)
// and the cold-start bench (js/bench/cold-workerd.mjs).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Where `node js/pack.mjs` installs the packed tarball, the way a consumer gets it. */
export const CONSUMER_NODE_MODULES = join(JS, "out/consumer/node_modules");
/** Newest date workerd 1.20260426.x accepts (its own date + 7 days). nodejs_compat is not needed. */
export const COMPATIBILITY_DATE = "2026-05-03";

const requireTool = createRequire(join(JS, "package.json"));
/** Import one of the repo's tools (esbuild, miniflare, ...) from js/node_modules. */
export const importTool = (name) => import(pathToFileURL(requireTool.resolve(name)).href);

/**
 * Bundle a worker for workerd: `entry` (a file) or `source` (its text, resolved
 * from `resolveDir`). Returns `{ modules, bytes, wasm, ms }`: `modules` is
 * Miniflare's module list, the bundle first (`<moduleDir>/worker.js`), then each wasm.
 *
 * How the wasm gets in: the package's "workerd" condition resolves to
 * edge/workerd.js, which does `import wasm from "../wasm/edge_bg.wasm"`
 * (workerd refuses to compile wasm from bytes at run time, so the module must
 * be imported as an already-compiled WebAssembly.Module). esbuild cannot
 * bundle that, so the plugin keeps every `*.wasm` import external and rewrites
 * its path to `./<file name>`, a module name next to the bundle, remembering
 * which file that was; the same bytes go to Miniflare as a `CompiledWasm`
 * module of exactly that name, so the two names cannot drift apart.
 */
export async function bundleForWorkerd({ entry, source, sourcefile = "worker.js", resolveDir = JS, moduleDir = JS, packageNodeModules = CONSUMER_NODE_MODULES, define = {}, plugins = [] }) {
  if (!existsSync(join(packageNodeModules, "mcp-sealed-state/package.json"))) {
    throw new Error(`mcp-sealed-state is not installed in ${packageNodeModules}: run \`npm --prefix js run build && node js/pack.mjs\` first`);
  }
  const esbuild = await importTool("esbuild");
  const t0 = performance.now();
  const wasm = new Map(); // module name -> absolute path
  const wasmAsModule = {
    name: "wasm-as-compiled-module",
    setup(build) {
      build.onResolve({ filter: /\.wasm$/ }, (args) => {
        const file = resolve(args.resolveDir, args.path);
        const name = basename(file);
        if (wasm.has(name) && wasm.get(name) !== file) throw new Error(`two different wasm files are both named ${name}`);
        wasm.set(name, file);
        return { path: `./${name}`, external: true };
      });
    },
  };
  const result = await esbuild.build({
    ...(source === undefined ? { entryPoints: [entry] } : { stdin: { contents: source, resolveDir, sourcefile, loader: "js" } }),
    bundle: true,
    write: false,
    outfile: "worker.js",
    format: "esm",
    platform: "browser", // workerd: web APIs, no Node built-ins
    // "workerd" picks mcp-sealed-state's edge/workerd.js and the SDK's workerd shims.
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    // Bare imports: the packed package first, then the repo's tooling.
    nodePaths: [packageNodeModules, join(JS, "node_modules")],
    plugins: [...plugins, wasmAsModule],
    define, // e.g. process.env.NODE_ENV, as a user's bundler config sets it
    logLevel: "warning",
    metafile: true,
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.keys(result.metafile.inputs);
  if (inputs.some((i) => i.includes("mcp-sealed-state/")) && !inputs.some((i) => /mcp-sealed-state\/(edge|widget)\/workerd\.js$/.test(i))) {
    throw new Error("the bundle did not pick mcp-sealed-state's workerd entry");
  }
  const modules = [
    { type: "ESModule", path: join(moduleDir, "worker.js"), contents: code },
    ...[...wasm].map(([name, file]) => ({ type: "CompiledWasm", path: join(moduleDir, name), contents: new Uint8Array(readFileSync(file)) })),
  ];
  return { modules, bytes: code.length, wasm: [...wasm.values()], ms: performance.now() - t0 };
}
