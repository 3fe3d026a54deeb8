// Stores for a Svelte 5 component: `$ui.tab = "history"` saves, `$token.status` shows.
import { sealedToken, viewState } from "mcp-sealed-state/svelte";

export function stores(app) {
  const ui = viewState(app, { tab: "board" });
  const token = sealedToken(app, { persist: true });
  const showHistory = () => ui.update((s) => ({ ...s, tab: "history" }));
  return { ui, token, showHistory };
}
