// Installs the View frameworks' test project: the frameworks and ext-apps 2.x
// from this folder's lockfile, ext-apps 1.x from ext-apps-1/'s, and the
// packed mcp-sealed-state tarball into both, as a user installs it (npm
// resolves its peer range against each ext-apps: ERESOLVE fails here).
//
//   node js/views/setup.mjs
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setup, tarball } from "../lib/npm-project.mjs";

export const VIEWS = dirname(fileURLToPath(import.meta.url));
/** The project each ext-apps major is installed in; the frameworks resolve from VIEWS/node_modules for both. */
export const PROJECTS = { 2: VIEWS, 1: join(VIEWS, "ext-apps-1") };

if (import.meta.url === `file://${process.argv[1]}`) {
  setup(PROJECTS[2]);
  setup(PROJECTS[1]);
  console.log(`js/views: frameworks, ext-apps 2.x and 1.x, and ${tarball()} installed`);
}
