// @ts-check
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

const hooks = viewHooks({ useCallback, useEffect, useRef, useState });
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
