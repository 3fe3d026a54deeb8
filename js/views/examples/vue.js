// A Vue component's setup: `ui` is a ref saved back as it changes.
import { useSealedToken, useViewState } from "mcp-sealed-state/vue";

export function setup(app) {
  const { state: ui } = useViewState(app, { tab: "board" });
  const { token, status } = useSealedToken(app, { persist: true });
  const showHistory = () => (ui.value.tab = "history");
  return { ui, token, status, showHistory };
}
