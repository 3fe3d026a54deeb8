// @ts-check
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

// The types of the arguments and results, as every framework entry names them.
/** @typedef {import("../view-binding/index.js").ViewStateSource} ViewStateSource */
/** @typedef {import("../view-binding/index.js").TokenKeeperSource} TokenKeeperSource */
/** @typedef {import("../view-binding/index.js").ViewStateOptions} ViewStateOptions */
/** @typedef {import("../view-binding/index.js").SealedTokenOptions} SealedTokenOptions */
/** @typedef {import("../view-binding/index.js").ViewStateStatus} ViewStateStatus */
/** @typedef {import("../view-binding/index.js").ViewStateStatusFields} ViewStateStatusFields */
/** @typedef {import("../view-binding/index.js").SealedTokenSnapshot} SealedTokenSnapshot */
/** @typedef {import("../view-binding/index.js").SealedTokenFields} SealedTokenFields */
/** @typedef {import("../view-binding/index.js").SealedTokenActions} SealedTokenActions */
/**
 * @template T
 * @typedef {import("../view-binding/index.js").StateUpdate<T>} StateUpdate
 */
/** @typedef {import("../view-binding/hooks.js").SealedToken} SealedToken */
/** @typedef {import("../view-binding/hooks.js").UseViewState} UseViewState */
/** @typedef {import("../view-binding/hooks.js").UseSealedToken} UseSealedToken */

// useViewState(app, initial, { debounceMs }) -> [state, setState, status];
// useSealedToken(app | keeper, { initial, persist }) -> { token, source,
// expired, status, adopt, offer, reset }. Typed and documented in
// ../view-binding/hooks.js (UseViewState, UseSealedToken).
const hooks = viewHooks({ useCallback, useEffect, useRef, useState, useSyncExternalStore });
/**
 * Like useState, restored from this render's view-state store and saved back
 * to it (debounced): `[state, setState, status]` (UseViewState).
 */
export const useViewState = hooks.useViewState;
/**
 * The freshest sealed token of the View's tool results and the "expired,
 * start over" flag, with the keeper's actions (UseSealedToken).
 */
export const useSealedToken = hooks.useSealedToken;
