// The import graph of pkg-template/, js/ and www/, checked for circles and for
// imports that run back up the folder tree. It fails (exit 1) on either.
//
//   node js/tools/imports.mjs [--list]     --list prints every edge
//
// The rules, by the folder of the importing file:
//   pkg-template/  imports only pkg-template/ (the package ships alone)
//   js/lib/        imports only js/lib/ (the infrastructure js/ and www/ share)
//   js/ (the rest) imports js/, never www/
//   www/e2e/       imports www/, js/lib/ and build/ (the built View): the tests
//   www/ (the rest, the demo) imports www/, build/ and, of js/, only
//                  js/lib/servers.mjs (the launchers it shares with the tests),
//                  js/lib/workerd.mjs (the bundler the View's build uses) and
//                  js/lib/npm-project.mjs (the tarball install www/views uses)
// Bare specifiers (npm packages, node: built-ins) are not checked. esbuild
// parses every file, so comments and strings that look like imports are not
// mistaken for them, and dynamic import() of a literal counts.
import { readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FOLDERS = ["pkg-template", "js", "www"];
const SKIP = new Set(["node_modules", "out"]);

function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (/\.(js|mjs|cjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every relative import of every file: [{ from, to, kind }], paths relative to the repo. */
export async function importGraph() {
  const files = FOLDERS.flatMap((f) => sources(join(ROOT, f)));
  const edges = [];
  const record = {
    name: "record-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        if (args.path.startsWith(".")) {
          edges.push({ from: relative(ROOT, args.importer), to: relative(ROOT, resolve(args.resolveDir, args.path)), kind: args.kind });
        }
        return { path: args.path, external: true };
      });
    },
  };
  await esbuild.build({
    entryPoints: files,
    bundle: true,
    write: false,
    outdir: join(ROOT, "build/imports-check"),
    format: "esm",
    platform: "neutral",
    logLevel: "silent",
    plugins: [record],
    loader: { ".js": "jsx" },
  });
  return { files: files.map((f) => relative(ROOT, f)), edges };
}

const under = (path, folder) => path === folder || path.startsWith(folder + sep) || path.startsWith(`${folder}/`);

// What the demo shares with the tests, of js/: the launchers, the workerd
// bundler that the View's build (www/game/build.mjs) uses too, and the
// packed tarball's install into an npm project (www/views/build.mjs).
const SHARED_WITH_DEMO = new Set(["js/lib/servers.mjs", "js/lib/workerd.mjs", "js/lib/npm-project.mjs"]);

/** Why the edge `from -> to` runs up or out of its folder, or undefined. */
export function ruleBroken(from, to) {
  if (under(from, "pkg-template")) return under(to, "pkg-template") ? undefined : "pkg-template imports only pkg-template";
  if (under(from, "js/lib")) return under(to, "js/lib") ? undefined : "js/lib imports only js/lib";
  if (under(from, "js")) return under(to, "js") ? undefined : "js imports only js (js/lib is what it shares with www)";
  if (under(from, "www/e2e")) return under(to, "www") || under(to, "js/lib") || under(to, "build") ? undefined : "www/e2e imports only www, js/lib and build";
  if (under(from, "www")) return under(to, "www") || SHARED_WITH_DEMO.has(to) || under(to, "build") ? undefined : `the demo (www/) imports only www, build and ${[...SHARED_WITH_DEMO].join(", ")}`;
  return undefined;
}

/** Every circle of the graph, each once, as a list of files. */
export function circles(edges) {
  const next = new Map();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const found = new Map();
  const state = new Map(); // 1: on the path, 2: done
  const path = [];
  const visit = (node) => {
    state.set(node, 1);
    path.push(node);
    for (const n of next.get(node) ?? []) {
      if (state.get(n) === 1) {
        const loop = path.slice(path.indexOf(n));
        const key = [...loop].sort().join(" ");
        if (!found.has(key)) found.set(key, [...loop, n]);
      } else if (state.get(n) === undefined) visit(n);
    }
    path.pop();
    state.set(node, 2);
  };
  for (const node of [...next.keys()].sort()) if (state.get(node) === undefined) visit(node);
  return [...found.values()];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { files, edges } = await importGraph();
  if (process.argv.includes("--list")) for (const e of edges) console.log(`${e.from} -> ${e.to}${e.kind === "dynamic-import" ? " (dynamic)" : ""}`);
  const problems = [];
  for (const { from, to } of edges) {
    const why = ruleBroken(from, to);
    if (why) problems.push(`upward import: ${from} -> ${to} (${why})`);
  }
  for (const loop of circles(edges)) problems.push(`circle: ${loop.join(" -> ")}`);
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(`imports: ${files.length} files, ${edges.length} relative imports, no circle, none upward`);
}
