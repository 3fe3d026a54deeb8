// In a standalone component's field initializers (an injection context): signals.
import { injectSealedToken, injectViewState } from "mcp-sealed-state/angular";

export function board(app) {
  const ui = injectViewState(app, { tab: "board" });
  const { token, status } = injectSealedToken(app, { persist: true });
  const showHistory = () => ui.set((s) => ({ ...s, tab: "history" }));
  return { ui: ui.value, token, status, showHistory };
}
