// The tic-tac-toe View in React: ext-apps' useApp creates and connects the App,
// as ext-apps' React example does; onAppCreated hands it to trackViewState
// first, and the game renders with it at once (in an Apps SDK host no bridge
// ever answers, so useApp's `app` stays null there).
import { APP_INFO, DEBOUNCE_MS, INITIAL_UI, TABS, TOKEN_OPTIONS, describe, move, startOver, unmountOnTeardown } from "./game.js";
import { useApp } from "@modelcontextprotocol/ext-apps/react";
import { trackViewState } from "mcp-sealed-state/app";
import { useSealedToken, useViewState } from "mcp-sealed-state/react";
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";

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
    <main id="game" className="play" data-framework="react" {...v.data}>
      <p id="status" className="status">
        {v.text}
      </p>
      <div id="board" className="board">
        {v.cells.map((c) => (
          <button key={c.i} type="button" className={c.className} data-cell={c.i} data-mark={c.mark} disabled={c.disabled} onClick={() => play(() => move(app, token.token, c.i))}>
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
      <div className="tabs" role="tablist">
        {TABS.map((tab) => (
          <button key={tab} type="button" role="tab" data-tab={tab} aria-selected={ui.tab === tab} onClick={() => setUi({ ...ui, tab })}>
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
  const [created, setCreated] = useState(null);
  useApp({
    appInfo: APP_INFO,
    capabilities: {},
    onAppCreated: (app) => {
      trackViewState(app);
      unmountOnTeardown(app, () => root.unmount());
      setCreated(app);
    },
  });
  return created ? <Game app={created} /> : <p>Connecting…</p>;
}

const root = createRoot(document.getElementById("root"));
root.render(
  <StrictMode>
    <TicTacToe />
  </StrictMode>,
);
