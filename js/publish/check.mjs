// The publish checks, on the packed tarball (js/out/*.tgz, made by js/pack.mjs):
//
//   node js/publish/check.mjs
//
// - publint: no message at all (errors, warnings and suggestions);
// - @arethetypeswrong/cli: no problem but the deliberate ones listed in
//   attw-expected.json, each with its reason; a new one fails, and so does a
//   listed one that is gone (the list must say what the package is);
// - npm publish --dry-run: it runs, and warns of nothing but the missing login
//   (a dry run needs none, and this machine has none);
// - the tarball holds the licence files, the readme and the changelog.
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "../out");
const tarballs = readdirSync(out).filter((f) => f.endsWith(".tgz"));
if (tarballs.length !== 1) throw new Error(`expected one tarball in ${out} (node js/pack.mjs), found ${tarballs.length}`);
const tarball = join(out, tarballs[0]);
const failures = [];

// What a user must find beside the code: the licences the manifest names, the readme, the changelog.
{
  const listed = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n");
  const missing = ["README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"].filter((f) => !listed.includes(`package/${f}`));
  if (missing.length) failures.push(`the tarball lacks ${missing.join(", ")}`);
  console.log(`tarball: ${listed.filter(Boolean).length} files; README.md, CHANGELOG.md, LICENSE-MIT, LICENSE-APACHE ${missing.length ? "incomplete" : "present"}`);
}

// publint reads the tarball itself: the files a user gets, not the folder.
{
  const bytes = readFileSync(tarball);
  const { messages, pkg } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, level: "suggestion", strict: true });
  for (const m of messages) failures.push(`publint ${m.type}: ${formatMessage(m, pkg, { color: false })}`);
  console.log(`publint: ${messages.length} messages`);
}

// attw exits 1 on any problem, deliberate ones included: its JSON is judged here.
{
  // Its JSON (megabytes of resolution traces) goes to a file: attw exits 1 on
  // a problem, and a process that exits with a pipe as stdout loses what the
  // pipe had not taken yet; writes to a file are synchronous.
  const out = join(mkdtempSync(join(tmpdir(), "attw-")), "attw.json");
  const fd = openSync(out, "w");
  try {
    spawnSync(process.execPath, [join(here, "node_modules/@arethetypeswrong/cli/dist/index.js"), "--format", "json", tarball], { stdio: ["ignore", fd, "inherit"] });
  } finally {
    closeSync(fd);
  }
  const { analysis } = JSON.parse(readFileSync(out, "utf8"));
  rmSync(dirname(out), { recursive: true, force: true });
  const key = (p) => [p.kind, p.entrypoint ?? p.typesFileName?.replace("/node_modules/mcp-sealed-state/", "./"), p.resolutionKind].filter(Boolean).join(" ");
  const found = analysis.problems.map(key);
  const expected = JSON.parse(readFileSync(join(here, "attw-expected.json"), "utf8")).deliberate;
  for (const problem of found) if (!expected.some((e) => e.problem === problem)) failures.push(`attw: ${problem} (new: fix it, or list it with its reason in js/publish/attw-expected.json)`);
  for (const { problem } of expected) if (!found.includes(problem)) failures.push(`attw: ${problem} is listed as deliberate but no longer found: take it out of js/publish/attw-expected.json`);
  console.log(`attw ${analysis.packageName}@${analysis.packageVersion}: ${found.length} problems, ${expected.length} listed as deliberate`);
  for (const problem of found) console.log(`  ${problem}`);
}

// npm publish --dry-run of the tarball: what npm would upload, and its warnings.
{
  const run = spawnSync("npm", ["publish", "--dry-run", "--loglevel=warn", tarball], { encoding: "utf8" });
  const warnings = run.stderr.split("\n").filter((l) => /^npm (warn|error|ERR)/i.test(l));
  // The one warning a dry run without credentials gives: a real publish logs in first.
  const unexpected = warnings.filter((l) => !/^npm warn publish This command requires you to be logged in to .* \(dry-run\)$/.test(l));
  if (run.status !== 0 || unexpected.length) failures.push(`npm publish --dry-run: exit ${run.status}\n${run.stderr}`);
  console.log(`npm publish --dry-run: exit ${run.status}, ${run.stdout.trim()}${warnings.length ? ` (${warnings.join("; ")})` : ""}`);
}

if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("publish checks: clean");
