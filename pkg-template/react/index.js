// mcp-sealed-state/react: view state and the freshest sealed token as React
// hooks, over mcp-sealed-state/app. React and @modelcontextprotocol/ext-apps
// are optional peer dependencies of the package, needed only by this entry.
//
//   const [state, setState, status] = useViewState(app, { tab: "board" });
//   const { token, expired, status } = useSealedToken(app, { persist: true });
//
// `app` is an ext-apps App that mcp-sealed-state/app tracks: connected with
// connectWithViewState(app), or given to trackViewState(app) before something
// else connects it (ext-apps' useApp: `onAppCreated: trackViewState`); or the
// ViewState itself; null/undefined (not connected yet) is allowed. The
// semantics, the same in every framework entry: docs/views.md ("Frameworks").
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { viewHooks } from "../view-binding/hooks.js";

export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

// useViewState(app, initial, { debounceMs }) -> [state, setState, status];
// useSealedToken(app | keeper, { initial, persist }) -> { token, source,
// expired, status, adopt, offer, reset }. Documented in index.d.ts.
export const { useViewState, useSealedToken } = viewHooks({ useCallback, useEffect, useRef, useState, useSyncExternalStore });
