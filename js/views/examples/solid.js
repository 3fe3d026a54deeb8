// Inside a Solid component: signals, stopped with it.
import { createSealedToken, createViewState } from "mcp-sealed-state/solid";

export function board(app) {
  const [ui, setUi] = createViewState(app, { tab: "board" });
  const { token, status } = createSealedToken(app, { persist: true });
  const showHistory = () => setUi((s) => ({ ...s, tab: "history" }));
  return { ui, token, status, showHistory };
}
