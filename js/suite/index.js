// The behaviour suite: one set of test modules that every runtime runs
// unchanged (js/suite/runtimes.test.mjs drives Node 20, 22, 24 and 26, Deno, Bun,
// workerd and Chromium). Each module imports the package by its bare name,
// which each runtime resolves from a project that installed the packed
// tarball, with its own export condition. `vectors.js` and `tables.js` are
// written next to this file by the runner from tests/vectors/.
import "./cases/codec.js";
import "./cases/reasons.js";
import "./cases/hostile.js";
import "./cases/rotation.js";
import "./cases/clock.js";
import "./cases/vectors.js";
import "./cases/dropin.js";
import "./cases/widget.js";
import "./cases/secret.js";
import "./cases/options.js";
import "./cases/request.js";

export { run } from "./harness.js";
