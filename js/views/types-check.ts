// The framework entries' .d.ts files, as a TypeScript user imports them (tsc --noEmit, strict, nodenext).
import type { App } from "@modelcontextprotocol/ext-apps";
import { useSealedToken as vueToken, useViewState as vueState } from "mcp-sealed-state/vue";
import { sealedToken, viewState } from "mcp-sealed-state/svelte";
import { createSealedToken, createViewState } from "mcp-sealed-state/solid";
import { useSealedToken as preactToken, useViewState as preactState } from "mcp-sealed-state/preact";
import { injectSealedToken, injectViewState } from "mcp-sealed-state/angular";

declare const app: App;
type Ui = { tab: string };
const v = vueState<Ui>(app, { tab: "board" });
v.state.value.tab = "history";
const vs: string | null = v.status.value.store;
const vt: string | null = vueToken(app, { persist: true }).token.value;
const s = viewState<Ui>(app, { tab: "board" });
s.set({ tab: "x" });
const st = sealedToken(app);
st.subscribe((t) => t.status satisfies "waiting" | "ready" | "expired" | "none");
const [ui, setUi, status] = createViewState<Ui>(app, { tab: "board" });
setUi((p) => ({ ...p, tab: ui().tab }));
const ss: number | null = status().maxBytes;
const sl: boolean = createSealedToken(() => app).expired();
const [p, setP] = preactState<Ui>(app, { tab: "board" });
setP({ tab: p.tab });
const pt: string | null = preactToken(app).token;
const a = injectViewState<Ui>(app, { tab: "board" });
a.set((prev) => ({ ...prev, tab: a.value().tab }));
const at: string | null = injectSealedToken(app, { persist: "token" }).token();
export { vs, vt, ss, sl, pt, at };
