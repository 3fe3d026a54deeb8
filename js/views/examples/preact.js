// A Preact hook: the React entry's hooks over preact/hooks.
import { useSealedToken, useViewState } from "mcp-sealed-state/preact";

export function useBoard(app) {
  const [ui, setUi] = useViewState(app, { tab: "board" });
  const { token, status } = useSealedToken(app, { persist: true });
  const showHistory = () => setUi((s) => ({ ...s, tab: "history" }));
  return { ui, token, status, showHistory };
}
