// A Host's ui/set-view-state storage for ViewStateAppBridge in tests: it keeps
// the last state, records every save, and lets a test await the next one.

/** A storage starting at `initial`: `{ value, saves, load, save, nextSave }`. */
export function hostStorage(initial = null) {
  const s = {
    value: initial,
    saves: [],
    waiters: [],
    load: async () => s.value,
    save: async (state) => {
      s.saves.push(state);
      s.value = state;
      for (const w of s.waiters.splice(0)) w();
    },
    nextSave: () => new Promise((r) => s.waiters.push(r)),
  };
  return s;
}
