// The tic-tac-toe View in Solid: the App created in onMount, as ext-apps'
// Solid example does, connected with connectWithViewState; signals of
// mcp-sealed-state/solid, given the App as an accessor.
import { APP_INFO, DEBOUNCE_MS, INITIAL_UI, TABS, TOKEN_OPTIONS, describe, move, startOver, unmountOnTeardown } from "./game.js";
import { App } from "@modelcontextprotocol/ext-apps";
import { connectWithViewState } from "mcp-sealed-state/app";
import { createSealedToken, createViewState } from "mcp-sealed-state/solid";
import { For, Show, createMemo, createSignal, onMount } from "solid-js";
import { render } from "solid-js/web";

function TicTacToe() {
  const [app, setApp] = createSignal(null);
  const [ui, setUi, status] = createViewState(app, INITIAL_UI, { debounceMs: DEBOUNCE_MS });
  const token = createSealedToken(app, TOKEN_OPTIONS);
  const [busy, setBusy] = createSignal(false);
  const [message, setMessage] = createSignal(null);
  const v = createMemo(() => describe({ token: token.token(), source: token.source(), expired: token.expired(), status: token.status() }, ui(), status(), busy()));
  const play = async (call) => {
    setBusy(true);
    setMessage(await call());
    setBusy(false);
  };
  onMount(() => {
    const instance = new App(APP_INFO);
    unmountOnTeardown(instance, () => dispose());
    setApp(instance);
    connectWithViewState(instance).catch(console.error);
  });
  return (
    <main id="game" class="play" data-framework="solid" {...v().data}>
      <p id="status" class="status">
        {v().text}
      </p>
      <div id="board" class="board">
        <For each={v().cells}>
          {(c) => (
            <button type="button" class={c.className} data-cell={c.i} data-mark={c.mark} disabled={c.disabled} onClick={() => play(() => move(app(), token.token(), c.i))}>
              {c.label}
            </button>
          )}
        </For>
      </div>
      <Show when={v().canStart}>
        <button id="start-over" type="button" onClick={() => play(() => startOver(app()))}>
          Start over
        </button>
      </Show>
      <Show when={message()}>
        <p id="game-message">{message()}</p>
      </Show>
      <div class="tabs" role="tablist">
        <For each={TABS}>
          {(tab) => (
            <button type="button" role="tab" data-tab={tab} aria-selected={String(ui().tab === tab)} onClick={() => setUi({ ...ui(), tab })}>
              {tab}
            </button>
          )}
        </For>
      </div>
      <pre id="panel">{v().panel}</pre>
      <p id="store">{v().store}</p>
    </main>
  );
}

const dispose = render(() => <TicTacToe />, document.getElementById("root"));
