// Builds the tic-tac-toe View in each framework into ONE HTML file, as
// ext-apps' example for that framework builds (Vite, the framework's own Vite
// plugin, vite-plugin-singlefile): build/views/<framework>.html, and one of
// them against ext-apps 1.x (ext-apps-1/) as build/views/<framework>-ext-apps-1.html.
// Prints each file's bytes and gzip -9 bytes.
//
//   node www/views/build.mjs [framework ...]
//
// First installs this folder's npm project and ext-apps-1/ (their lockfiles)
// and the packed mcp-sealed-state tarball into both (js/lib/npm-project.mjs):
// `npm --prefix js run build && node js/pack.mjs` first.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { setup } from "../../js/lib/npm-project.mjs";

export const HERE = dirname(fileURLToPath(import.meta.url));
const OUT_DIR = resolve(HERE, "../../build/views");
/** The npm project each ext-apps major is installed in; the frameworks and Vite resolve from HERE for both. */
export const PROJECTS = { 2: HERE, 1: join(HERE, "ext-apps-1") };
/** The View built on ext-apps 1.x too: Angular, whose users (ng-mcp-ui) pin 1.7.5. */
export const ON_EXT_APPS_1 = "angular";

/** Each framework: its entry in src/, its Vite plugin (as ext-apps' example for it uses), the packages whose versions the figures name. */
export const FRAMEWORKS = {
  react: { entry: "react.jsx", plugin: async () => (await import("@vitejs/plugin-react")).default(), packages: ["react", "@vitejs/plugin-react"] },
  vue: { entry: "vue.js", plugin: async () => (await import("@vitejs/plugin-vue")).default(), packages: ["vue", "@vitejs/plugin-vue"] },
  svelte: { entry: "svelte.js", plugin: async () => (await import("@sveltejs/vite-plugin-svelte")).svelte({ configFile: false }), packages: ["svelte", "@sveltejs/vite-plugin-svelte"] },
  solid: { entry: "solid.jsx", plugin: async () => (await import("vite-plugin-solid")).default(), packages: ["solid-js", "vite-plugin-solid"] },
  preact: { entry: "preact.jsx", plugin: async () => (await import("@preact/preset-vite")).default(), packages: ["preact", "@preact/preset-vite"] },
  angular: {
    entry: "angular.ts",
    plugin: async () => (await import("@analogjs/vite-plugin-angular")).default({ tsconfig: join(HERE, "tsconfig.json") }),
    packages: ["@angular/core", "@analogjs/vite-plugin-angular"],
    // As ext-apps' Angular example resolves.
    config: {
      resolve: { mainFields: ["module"] },
      // The plugin sets `esbuild: false` unless given one, which also turns off Vite's minifier: the example's
      // `minify: true` then ships the bundle unminified (js/bench/RESULTS.md). An esbuild config keeps it on.
      esbuild: {},
    },
  },
};

/** Where the View of `framework` built on ext-apps `major` lands. */
export const viewHtml = (framework, major = 2) => join(OUT_DIR, major === 2 ? `${framework}.html` : `${framework}-ext-apps-${major}.html`);

/** The installed version of `name` in `project`. */
export const versionOf = (name, project = HERE) => JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")).version;

/**
 * Build the View of `framework` with mcp-sealed-state, ext-apps and zod
 * resolved from `project` (an npm project where the packed tarball is
 * installed) into `out`. Resolves with { file, bytes, gzip }.
 */
export async function buildView(framework, { project = HERE, out = viewHtml(framework) } = {}) {
  const { entry, plugin, config = {} } = FRAMEWORKS[framework];
  // As `vite build` sets it before any plugin is made: some (Vue's) read it when made.
  process.env.NODE_ENV = "production";
  const { build } = await import("vite");
  const { viteSingleFile } = await import("vite-plugin-singlefile");
  const fromProject = {
    name: "packages-from-the-project",
    enforce: "pre",
    resolveId(source, _importer, options) {
      if (source === "/view.js") return join(HERE, "src", entry);
      if (!/^(mcp-sealed-state|@modelcontextprotocol\/[^/]+|zod)(\/|$)/.test(source)) return null;
      // Resolved as from a file of `project` (one that exists: Vite resolves from the root otherwise).
      return this.resolve(source, join(project, "package.json"), { ...options, skipSelf: true });
    },
  };
  const staging = join(OUT_DIR, `.vite-${framework}`);
  await build({
    configFile: false,
    mode: "production",
    root: HERE,
    base: "./",
    logLevel: "warn",
    // One copy of each framework (the package's entries import it too), from this project.
    resolve: { dedupe: ["react", "react-dom", "preact", "vue", "svelte", "solid-js", "@angular/core"], ...config.resolve },
    esbuild: config.esbuild,
    plugins: [fromProject, await plugin(), viteSingleFile()],
    build: {
      outDir: staging,
      emptyOutDir: true,
      reportCompressedSize: false,
      modulePreload: { polyfill: false },
      // As ext-apps' examples set them for a production build.
      minify: true,
      cssMinify: true,
      // zod's comments that Rollup drops: noise, not news.
      rollupOptions: { onwarn: (warning, warn) => warning.code !== "INVALID_ANNOTATION" && warn(warning) },
    },
  });
  mkdirSync(dirname(out), { recursive: true });
  renameSync(join(staging, "index.html"), out);
  rmSync(staging, { recursive: true, force: true });
  const html = readFileSync(out);
  return { file: out, bytes: html.length, gzip: gzipSync(html, { level: 9 }).length };
}

/** Install both projects, then build `frameworks` (default all six) and the ext-apps 1.x View. */
export async function buildViews(frameworks = Object.keys(FRAMEWORKS)) {
  setup(PROJECTS[2]);
  setup(PROJECTS[1]);
  const built = [];
  for (const framework of frameworks) built.push({ framework, major: 2, ...(await buildView(framework)) });
  if (frameworks.includes(ON_EXT_APPS_1)) built.push({ framework: ON_EXT_APPS_1, major: 1, ...(await buildView(ON_EXT_APPS_1, { project: PROJECTS[1], out: viewHtml(ON_EXT_APPS_1, 1) })) });
  return built;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2);
  for (const w of wanted) if (!FRAMEWORKS[w]) throw new Error(`unknown framework ${w}: one of ${Object.keys(FRAMEWORKS).join(", ")}`);
  for (const { framework, major, bytes, gzip } of await buildViews(wanted.length ? wanted : undefined)) {
    const project = PROJECTS[major];
    const versions = [...FRAMEWORKS[framework].packages, "@modelcontextprotocol/ext-apps"].map((p) => `${p} ${versionOf(p, p.includes("ext-apps") ? project : HERE)}`).join(", ");
    console.log(`${framework.padEnd(8)} ext-apps ${major}.x  ${String(bytes).padStart(8)} B  ${String(gzip).padStart(7)} B gzip -9  (${versions})`);
  }
}
