// The tic-tac-toe View in Preact: the App created in an effect, as ext-apps'
// Preact example does, connected with connectWithViewState; hooks of
// mcp-sealed-state/preact (over preact/hooks, no compat).
import { APP_INFO, DEBOUNCE_MS, INITIAL_UI, TABS, TOKEN_OPTIONS, describe, move, startOver, unmountOnTeardown } from "./game.js";
import { App } from "@modelcontextprotocol/ext-apps";
import { connectWithViewState } from "mcp-sealed-state/app";
import { useSealedToken, useViewState } from "mcp-sealed-state/preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";

const root = document.getElementById("root");

function Game({ app }) {
  const [ui, setUi, status] = useViewState(app, INITIAL_UI, { debounceMs: DEBOUNCE_MS });
  const token = useSealedToken(app, TOKEN_OPTIONS);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState(null);
  const v = describe(token, ui, status, busy);
  const play = async (call) => {
    setBusy(true);
    setMessage(await call());
    setBusy(false);
  };
  return (
    <main id="game" class="play" data-framework="preact" {...v.data}>
      <p id="status" class="status">
        {v.text}
      </p>
      <div id="board" class="board">
        {v.cells.map((c) => (
          <button key={c.i} type="button" class={c.className} data-cell={c.i} data-mark={c.mark} disabled={c.disabled} onClick={() => play(() => move(app, token.token, c.i))}>
            {c.label}
          </button>
        ))}
      </div>
      {v.canStart && (
        <button id="start-over" type="button" onClick={() => play(() => startOver(app))}>
          Start over
        </button>
      )}
      {message && <p id="game-message">{message}</p>}
      <div class="tabs" role="tablist">
        {TABS.map((tab) => (
          <button key={tab} type="button" role="tab" data-tab={tab} aria-selected={String(ui.tab === tab)} onClick={() => setUi({ ...ui, tab })}>
            {tab}
          </button>
        ))}
      </div>
      <pre id="panel">{v.panel}</pre>
      <p id="store">{v.store}</p>
    </main>
  );
}

function TicTacToe() {
  const [app, setApp] = useState(null);
  useEffect(() => {
    const instance = new App(APP_INFO);
    unmountOnTeardown(instance, () => render(null, root));
    setApp(instance);
    connectWithViewState(instance).catch(console.error);
  }, []);
  return app ? <Game app={app} /> : <p>Connecting…</p>;
}

render(<TicTacToe />, root);
