// The package's TypeScript types, checked the way a consumer's compiler sees
// them: typed programs against the packed package, with `tsc --noEmit`, in
// TypeScript 5.9, 6.0 and 7.0 (the native compiler), under `strict` and
// `exactOptionalPropertyTypes` (where an optional option that does not say
// `| undefined` refuses `key: env.STATE_KEY`, TS2379). And a rule on the
// declarations themselves: every optional property accepts undefined.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";
import { test } from "node:test";
import { CONSUMER, JS_DIR, PACKAGE_DIR } from "./support.mjs";

const program = `
import { StateCodec, createRequestStateCodec, SealedStateError, STATE_META_KEY, type RequestStateCodec, type RequestStateCodecError } from "mcp-sealed-state";
import * as edge from "mcp-sealed-state/edge";
import { adoptToken, backend, checkViewState, init, isSealedStateError, readTokenUnverified, secondsLeft, setViewStateRequest, viewStateBytes,
  viewStateSupport, ViewStateSaveQueue, VIEW_STATE_ERRORS, type TokenView } from "mcp-sealed-state/widget";

const codec = new StateCodec({ key: ["k".repeat(32), new Uint8Array(32).fill(7)], ttlSeconds: 60, now: () => 0 });
const token: string = codec.seal({ board: [0] }, { bind: "u" });
const game: { board: number[] } = codec.open<{ board: number[] }>(token, { bind: "u" });
const rs: string = codec.sealRequestState(game, "move");
codec.openRequestState(rs, "move");
const meta: "ng-mcp-ui/state" = STATE_META_KEY;
try { codec.verify(codec.mint(1)); } catch (e) { if (e instanceof SealedStateError) { const r: "malformed" | "mac" | "expired" | "bind" | "purpose" | "request" = e.reason; } }
const view: TokenView = readTokenUnverified(token);
const p: "view" | "requestState" | null = view.purpose;
const left: number = secondsLeft(token, Date.now());
const kept: string | null = adoptToken(null, { _meta: { [meta]: token } });
const expired: boolean = isSealedStateError({ isError: true, content: [] });
const bytes: number = viewStateBytes({ a: 1 });
checkViewState({ a: 1 }, 65536);
const support = viewStateSupport({});
if (support) { const max: number = support.maxBytes; }
setViewStateRequest(1, { tab: "x" });
const q = new ViewStateSaveQueue(async () => {}, { maxBytes: 65536 });
void q.save({ a: 1 }); const last = q.lastSaved;
const c2 = createRequestStateCodec<{ step: number }>({ key: "k".repeat(32), bind: (ctx) => String(ctx.user) });
void c2.mint({ step: 1 }, { user: 1 }).then((s) => c2.verify(s, { user: 1 })).then((v) => v.step);
const c3: RequestStateCodec<number> = createRequestStateCodec<number>({ key: new Uint8Array(32).fill(7), ttlSeconds: 60, maxTokenBytes: 4096 });
void c3.verify("v1.x.y", {}).catch((e: RequestStateCodecError) => { const m: "malformed" | "mac" | "expired" | "bind" = e.message; const r: typeof m = e.reason; });
const same: typeof edge.StateCodec = StateCodec;
// The drop-in's ctx: the type bind reads (the SDK's ServerContext when bind is annotated with it), which mint and verify then take.
const c4 = createRequestStateCodec<{ n: number }, { user: string }>({ key: "k".repeat(32), bind: (ctx) => ctx.user });
void c4.verify("v1.x.y", { user: "u" });
// @ts-expect-error: verify takes the context bind reads
void c4.verify("v1.x.y", { user: 1 });
const c5 = createRequestStateCodec({ key: "k".repeat(32), bind: (ctx: { auth: { clientId: string } }) => ctx.auth.clientId });
// @ts-expect-error: the context type is inferred from bind's annotation
void c5.mint(1, {});
// As ServerOptions.requestState.verify, whose ctx is an interface (ServerContext), with and without bind.
interface ServerContextLike { mcpReq: { method: string }; http?: { authInfo?: { clientId: string } } }
const seam: (state: string, ctx: ServerContextLike) => unknown = c3.verify;
const seamBound: (state: string, ctx: ServerContextLike) => unknown = createRequestStateCodec({ key: "k".repeat(32), bind: (ctx) => \`\${ctx.mcpReq.method}\\0\${ctx.http?.authInfo?.clientId ?? ""}\` }).verify;
const reasonType: edge.SealedStateReason = "request";
const code: -32602 = VIEW_STATE_ERRORS.INVALID_PARAMS;
const which: "wasm" | "js" = backend();
void init().then((b: "wasm" | "js") => b);
const q2 = new ViewStateSaveQueue(() => undefined, { maxBytes: 10, storeTimeoutMs: 500 });
// @ts-expect-error: the server entry exports what servers call; the reader is the widget's
edge.readTokenUnverified(token);
// @ts-expect-error: so are init, backend and the view-state helpers
void edge.init;
// exactOptionalPropertyTypes: each optional option takes an explicit undefined (a Worker's unset binding).
declare const env: { STATE_KEY?: string; NODE_ENV?: string; TTL?: number };
const unbound = (): string | undefined => undefined;
const fromEnv = new StateCodec({ key: env.STATE_KEY, production: env.NODE_ENV === "production", ttlSeconds: env.TTL, leewaySeconds: undefined, maxTokenBytes: undefined, now: undefined });
fromEnv.open(fromEnv.seal(1, { bind: unbound(), secret: undefined }), { bind: unbound() });
fromEnv.openRequestState(fromEnv.sealRequestState(1, "move", { bind: unbound(), request: undefined, secret: undefined }), "move", { bind: unbound(), request: undefined });
createRequestStateCodec({ key: "k".repeat(32), ttlSeconds: env.TTL, bind: undefined, maxTokenBytes: undefined });
new ViewStateSaveQueue(async () => {}, { maxBytes: 10, initial: undefined });
// @ts-expect-error: a clock is a number or a Date
secondsLeft(token, "soon");
// @ts-expect-error: the payload type flows through open<T>
const wrong: string = codec.open<{ board: number[] }>(token);
`;

// The ext-apps adapters, with their optional peer installed beside the package.
const adapters = `
import { App } from "@modelcontextprotocol/ext-apps";
import { callTool, connectWithViewState, keepFreshestToken, trackViewState, ViewState, VIEW_STATE_STORES, LOCAL_KEY_PREFIX, type HostModel, type TokenKeeper, type TokenStatus, type ViewStateStoreName } from "mcp-sealed-state/app";
import { DEFAULT_STORE_TIMEOUT_MS, ViewStateAppBridge, localStorageViewState, type ViewStateStore } from "mcp-sealed-state/app-bridge";
import { DEFAULT_DEBOUNCE_MS, useSealedToken, useViewState } from "mcp-sealed-state/react";

const app = new App({ name: "v", version: "1" }, {});
const keeper: TokenKeeper = keepFreshestToken(app, { onchange: (t) => void t });
const held: string | null = keeper.token;
const from: "_meta" | "toolResponseMetadata" | "structuredContent" | "viewState" | "offer" | null = keeper.source;
const gone: boolean = keeper.expired;
const status: "waiting" | "ready" | "expired" | "none" = keeper.status;
const persisted: TokenKeeper = keepFreshestToken(app, { persist: true, window: undefined });
keepFreshestToken(app, { persist: "token" });
// @ts-expect-error: persist is true, false or a member name
keepFreshestToken(app, { persist: 1 });
void callTool(app, { name: "move", arguments: { cell: 1 } }).then((r) => { const c: unknown[] = r.content; const e: boolean | undefined = r.isError; });
// The restored state typed by the View (TS2558 before connectWithViewState was generic).
void connectWithViewState<{ tab: string }>(app, { bridgeTimeoutMs: 500, readyTimeoutMs: 1000 }).then(async (vs) => {
  const tab: string | undefined = vs.restored?.tab;
  await vs.save({ tab: "x" });
  // @ts-expect-error: the View's own type
  await vs.save({ tab: 1 });
  const model: HostModel = vs.hostModel;
  const off: () => void = vs.subscribe((same) => { const t: string | undefined = same.restored?.tab; });
});
trackViewState(app);
void connectWithViewState(app).then(async (vs) => {
  const sent: boolean = await vs.save({ tab: "x" });
  const restored: Record<string, unknown> | null = vs.restored;
  // @ts-expect-error: view state is an object or null
  void vs.save("text");
  const same: ViewState = await vs.ready;
  const where: "host" | "openai" | "local" | "memory" = same.store;
  const limit: number = vs.maxBytes;
  const offeredHere: boolean = vs.offered;
  const through: "local" | null = vs.writeThrough;
});
void connectWithViewState(app, { stores: ["openai", "local"] });
void connectWithViewState(app, undefined, { stores: VIEW_STATE_STORES, timeout: 1000 });
// @ts-expect-error: not a store
void connectWithViewState(app, { stores: ["cookies"] });
void trackViewState(app, { stores: ["memory"] });
const prefix: string = LOCAL_KEY_PREFIX;
const keeper2 = keepFreshestToken(app, { initial: null, now: () => 0 });
const store: ViewStateStore = { load: () => null, save: async () => {} };
const bridge = new ViewStateAppBridge(null, { name: "h", version: "1" }, {}, {}, { storage: store, maxBytes: 1024, storeTimeoutMs: DEFAULT_STORE_TIMEOUT_MS });
const offered: boolean = bridge.viewStateOffered;
bridge.onviewstatesaved = (state) => void state;
localStorageViewState("k");
// exactOptionalPropertyTypes: each optional option takes an explicit undefined.
keepFreshestToken(app, { initial: undefined, now: undefined, onchange: undefined, onexpired: undefined, onerror: undefined });
void connectWithViewState(app, { stores: undefined });
new ViewStateAppBridge(null, { name: "h", version: "1" }, {}, {}, { storage: store, maxBytes: undefined, storeTimeoutMs: undefined });
function Component() {
  const [state, setState, status] = useViewState(app, { n: 0 }, { debounceMs: DEFAULT_DEBOUNCE_MS });
  useViewState(app, { n: 0 }, { debounceMs: undefined });
  useSealedToken(keeper, { initial: undefined });
  setState((prev) => ({ n: prev.n + 1 }));
  const max: number | null = status.maxBytes;
  const where: ViewStateStoreName | null = status.store;
  const { token, expired } = useSealedToken(keeper);
  const sealed = useSealedToken(app, { persist: true });
  const shown: TokenStatus = sealed.status;
  const model: HostModel | null = status.hostModel;
  return [state.n, token, expired, max, shown, model];
}
void Component;
`;

// The compilers a consumer may run: TypeScript 5.9 (js/), 6.0 and 7.0, the
// native one (js/publish/, installed by scripts/setup.sh).
const COMPILERS = [
  ["5.9", join(JS_DIR, "node_modules/typescript/bin/tsc")],
  ["6.0", join(JS_DIR, "publish/node_modules/typescript/bin/tsc")],
  ["7.0", join(JS_DIR, "publish/node_modules/typescript7/bin/tsc")],
];

function tsc(bin, args) {
  try {
    return execFileSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  }
}

// The MCP client SDK's own declarations (under ext-apps) name Node's Buffer, hence @types/node there.
for (const [version, bin] of COMPILERS) {
  for (const [name, source, types] of [
    ["widget and edge", program, []],
    ["app, app-bridge and react", adapters, ["node"]],
  ]) {
    test(`the packed package's types check under TypeScript ${version} (strict, exactOptionalPropertyTypes, NodeNext): ${name}`, () => {
      assert.match(tsc(bin, ["--version"]), new RegExp(`^Version ${version.replace(".", "\\.")}\\.`));
      const dir = mkdtempSync(join(CONSUMER, "types-"));
      try {
        writeFileSync(join(dir, "program.ts"), source);
        writeFileSync(
          join(dir, "tsconfig.json"),
          JSON.stringify({
            compilerOptions: {
              strict: true,
              exactOptionalPropertyTypes: true,
              noEmit: true,
              module: "NodeNext",
              moduleResolution: "NodeNext",
              target: "ES2022",
              lib: ["ES2022", "DOM"],
              skipLibCheck: false,
              types,
              typeRoots: [join(JS_DIR, "node_modules/@types")],
            },
            files: ["program.ts"],
          }),
        );
        const out = tsc(bin, ["-p", dir]);
        assert.equal(out, "", out);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}

// A rule on the declarations, so that an option added later cannot bring
// TS2379 back: every optional property of every .d.ts/.d.cts the package
// ships (but wasm-bindgen's, which are internal) says `| undefined`, or is
// `unknown`/`any`, which hold it already.
test("every optional property in the package's declarations accepts undefined (exactOptionalPropertyTypes)", () => {
  const require = createRequire(join(JS_DIR, "package.json"));
  const ts = require("typescript");
  const files = readdirSync(PACKAGE_DIR, { recursive: true }).filter((f) => /\.d\.c?ts$/.test(f) && !f.startsWith(`wasm${sep}`));
  assert.ok(files.includes(join("edge", "index.d.ts")), files.join(", "));
  const missing = [];
  let seen = 0;
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(PACKAGE_DIR, file), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isPropertySignature(node) && node.questionToken) {
        seen++;
        const type = node.type;
        const holdsUndefined =
          !type ||
          type.kind === ts.SyntaxKind.UnknownKeyword ||
          type.kind === ts.SyntaxKind.AnyKeyword ||
          (ts.isUnionTypeNode(type) && type.types.some((t) => t.kind === ts.SyntaxKind.UndefinedKeyword));
        if (!holdsUndefined) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          missing.push(`${file}:${line + 1}: ${node.getText()}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.ok(seen > 20, `only ${seen} optional properties found: is the walk reading the declarations?`);
  assert.deepEqual(missing, []);
});
