// mcp-sealed-state/preact: view state and the freshest sealed token as
// Preact hooks over preact/hooks (no preact/compat), over
// mcp-sealed-state/app (preact and @modelcontextprotocol/ext-apps are
// optional peer dependencies). The hooks of mcp-sealed-state/react, with the
// same arguments, results and semantics: docs/views.md ("Frameworks").
//
//   const [state, setState, status] = useViewState(app, { tab: "board" });
//   const { token, expired, status } = useSealedToken(app, { persist: true });
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { viewHooks } from "../view-binding/hooks.js";

export { DEFAULT_DEBOUNCE_MS } from "../view-binding/index.js";

export const { useViewState, useSealedToken } = viewHooks({ useCallback, useEffect, useRef, useState });
