// mcp-sealed-state/solid: view state and the freshest sealed token as Solid
// signals, over mcp-sealed-state/app (solid-js and
// @modelcontextprotocol/ext-apps are optional peer dependencies).
//
//   const [ui, setUi, status] = createViewState(app, { tab: "board" }); // ui(), setUi({ … }) saves
//   const token = createSealedToken(app, { persist: true });          // token.token(), token.status()
//
// `app`: an App tracked by connectWithViewState / trackViewState, a
// ViewState, or an accessor of either (null until connected). Made under an
// owner (a component, createRoot), they stop with it, a pending save sent.
// Semantics: docs/views.md ("Frameworks").
import { createRenderEffect, createSignal, getOwner, onCleanup } from "solid-js";
import { DEFAULT_DEBOUNCE_MS, tokenBinding, viewStateBinding } from "../view-binding/index.js";

export { DEFAULT_DEBOUNCE_MS };

// Follow `source` (a value, or an accessor tracked by a render effect), calling `use(value)` and its returned cleanup.
function follow(source, use) {
  let stop = () => {};
  createRenderEffect(() => {
    stop();
    stop = use(typeof source === "function" ? source() : source);
  });
  if (getOwner()) onCleanup(() => stop());
}

const distinct = { equals: false }; // every snapshot is a new object; a state set again to the same object is still a change

/**
 * Like createSignal, for state restored from this render's store and saved
 * back to it debounced: returns [state, setState, status], `status` an
 * accessor of { store, hostModel, …, saving, error, flush }.
 */
export function createViewState(app, initial = null, { debounceMs = DEFAULT_DEBOUNCE_MS } = {}) {
  const binding = viewStateBinding(initial, { debounceMs });
  const [snapshot, setSnapshot] = createSignal(binding.snapshot, distinct);
  const stop = binding.subscribe(() => setSnapshot(binding.snapshot));
  if (getOwner()) onCleanup(stop);
  follow(app, (value) => binding.bind(value));
  return [() => snapshot().state, binding.set, () => snapshot().status];
}

/**
 * The freshest sealed token as accessors: { token(), source(), expired(),
 * status(), adopt, offer, reset }. A new App (through an accessor) makes a
 * new keeper (`initial` and `persist` as for keepFreshestToken).
 */
export function createSealedToken(appOrKeeper, { initial = null, persist = false } = {}) {
  let binding = tokenBinding(null);
  const [snapshot, setSnapshot] = createSignal(binding.snapshot);
  follow(appOrKeeper, (source) => {
    binding = tokenBinding(source, { initial, persist });
    setSnapshot(binding.snapshot);
    const stop = binding.subscribe(() => setSnapshot(binding.snapshot));
    const made = binding;
    return () => {
      stop();
      made.dispose();
    };
  });
  return {
    token: () => snapshot().token,
    source: () => snapshot().source,
    expired: () => snapshot().expired,
    status: () => snapshot().status,
    adopt: (result) => binding.adopt(result),
    offer: (token) => binding.offer(token),
    reset: () => binding.reset(),
  };
}
