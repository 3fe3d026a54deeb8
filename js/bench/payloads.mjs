// The three payloads of the issue. Medium and large are deterministic,
// ASCII-only JSON objects of app-like state (a game with a move history and
// notes), grown until JSON.stringify reaches the target size.

export const SMALL_JSON = '{"board":[0,0,0,0,0,0,0,0,0],"turn":1}';

function grown(targetBytes) {
  const state = { board: [0, 1, 2, 0, 1, 2, 0, 1, 2], turn: 7, player: "user-42", history: [] };
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
  for (let i = 0; ; i++) {
    const move = {
      n: i,
      cell: Math.floor(rnd() * 9),
      at: 1764490000 + i * 7,
      ok: rnd() > 0.2,
      score: Math.round(rnd() * 1e4) / 100,
      note: `${words[i % 10]} ${words[(i * 7) % 10]} move ${i}`,
    };
    state.history.push(move);
    const len = JSON.stringify(state).length;
    if (len >= targetBytes) {
      if (len > targetBytes) state.history.pop();
      // Pad to the exact size with a filler string.
      const short = targetBytes - JSON.stringify({ ...state, pad: "" }).length;
      if (short >= 0) state.pad = "x".repeat(short);
      return state;
    }
  }
}

export const PAYLOADS = [
  { name: "small", label: "small (38 B)", value: JSON.parse(SMALL_JSON) },
  { name: "medium", label: "medium (4 KiB)", value: grown(4096) },
  { name: "large", label: "large (64 KiB)", value: grown(65536) },
].map((p) => ({ ...p, bytes: Buffer.byteLength(JSON.stringify(p.value)) }));
