// The package's TypeScript types, checked the way a consumer's compiler sees
// them: a typed program against the packed package, with `tsc --noEmit`.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CONSUMER, JS_DIR } from "./support.mjs";

const program = `
import { StateCodec, createRequestStateCodec, SealedStateError, STATE_META_KEY, readTokenUnverified, type RequestStateCodec, type RequestStateCodecError } from "mcp-sealed-state";
import * as edge from "mcp-sealed-state/edge";
import { adoptToken, backend, checkViewState, init, isSealedStateError, secondsLeft, setViewStateRequest, viewStateBytes,
  viewStateSupport, ViewStateSaveQueue, VIEW_STATE_ERRORS, type TokenView } from "mcp-sealed-state/widget";

const codec = new StateCodec({ key: ["k".repeat(32), new Uint8Array(32)], ttlSeconds: 60, now: () => 0 });
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
const c3: RequestStateCodec<number> = createRequestStateCodec<number>({ key: new Uint8Array(32), ttlSeconds: 60, maxTokenBytes: 4096 });
void c3.verify("v1.x.y", {}).catch((e: RequestStateCodecError) => { const m: "malformed" | "mac" | "expired" | "bind" = e.message; const r: typeof m = e.reason; });
const same: typeof edge.StateCodec = StateCodec;
const code: -32602 = VIEW_STATE_ERRORS.INVALID_PARAMS;
const which: "wasm" | "js" = backend();
void init().then((b: "wasm" | "js") => b);
const q2 = new ViewStateSaveQueue(() => undefined, { maxBytes: 10, storeTimeoutMs: 500 });
const edgeBackend: "wasm" | "js" = edge.backend();
// @ts-expect-error: a clock is a number or a Date
secondsLeft(token, "soon");
// @ts-expect-error: the payload type flows through open<T>
const wrong: string = codec.open<{ board: number[] }>(token);
`;

// The ext-apps adapters, with their optional peer installed beside the package.
const adapters = `
import { App } from "@modelcontextprotocol/ext-apps";
import { connectWithViewState, keepFreshestToken, trackViewState, ViewState, VIEW_STATE_STORES, LOCAL_KEY_PREFIX, type TokenKeeper, type ViewStateStoreName } from "mcp-sealed-state/app";
import { DEFAULT_STORE_TIMEOUT_MS, ViewStateAppBridge, localStorageViewState, type ViewStateStore } from "mcp-sealed-state/app-bridge";
import { DEFAULT_DEBOUNCE_MS, useSealedToken, useViewState } from "mcp-sealed-state/react";

const app = new App({ name: "v", version: "1" }, {});
const keeper: TokenKeeper = keepFreshestToken(app, { onchange: (t) => void t });
const held: string | null = keeper.token;
const from: "_meta" | "toolResponseMetadata" | "structuredContent" | "offer" | null = keeper.source;
const gone: boolean = keeper.expired;
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
function Component() {
  const [state, setState, status] = useViewState(app, { n: 0 }, { debounceMs: DEFAULT_DEBOUNCE_MS });
  setState((prev) => ({ n: prev.n + 1 }));
  const max: number | null = status.maxBytes;
  const where: ViewStateStoreName | null = status.store;
  const { token, expired } = useSealedToken(keeper);
  return [state.n, token, expired, max];
}
void Component;
`;

// The MCP client SDK's own declarations (under ext-apps) name Node's Buffer, hence @types/node there.
for (const [name, source, types] of [
  ["widget and edge", program, []],
  ["app, app-bridge and react", adapters, ["node"]],
]) {
  test(`the packed package's types check under tsc (strict, NodeNext): ${name}`, () => {
    const dir = mkdtempSync(join(CONSUMER, "types-"));
    try {
      writeFileSync(join(dir, "program.ts"), source);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
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
      const tsc = join(JS_DIR, "node_modules/typescript/bin/tsc");
      let out = "";
      try {
        execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
      } catch (e) {
        out = `${e.stdout}${e.stderr}`;
      }
      assert.equal(out, "", out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
