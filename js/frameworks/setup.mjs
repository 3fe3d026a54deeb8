// Installs the framework tests' project from nothing: the frameworks from this
// folder's own lockfile, then the packed mcp-sealed-state tarball, as
// js/lib/npm-project.mjs does for every such project.
//
//   node js/frameworks/setup.mjs
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { setup as setupProject, tarball } from "../lib/npm-project.mjs";

export const FRAMEWORKS = dirname(fileURLToPath(import.meta.url));
export { tarball };

/** This folder's project (or another `project`), installed as js/lib/npm-project.mjs says. */
export const setup = (project = FRAMEWORKS) => setupProject(project);

if (import.meta.url === `file://${process.argv[1]}`) {
  setup();
  console.log(`js/frameworks: frameworks and ${tarball()} installed`);
}
