// A round trip through the packed package: seal a game, read it as the widget
// would (unverified), open it as the server would, and see a tampered copy fail.
import { importPackage } from "./test/support.mjs";

const edge = await importPackage();
const widget = await importPackage("/widget");

const codec = new edge.StateCodec({ key: process.env.SEALED_STATE_KEY ?? "demo key: at least thirty-two bytes long" });
const game = { board: [0, 0, 0, 0, 1, 0, 0, 0, 0], turn: 2 };
const token = codec.seal(game, { bind: "user-42" });
console.log(`sealed   ${token}`);
console.log("widget  ", widget.readTokenUnverified(token), `expires in ${widget.secondsLeft(token)} s`);
console.log("server  ", codec.open(token, { bind: "user-42" }));
const tampered = token.replace(/\.(.)/, (_, c) => `.${c === "A" ? "B" : "A"}`);
for (const [what, t, bind] of [["tampered", tampered, "user-42"], ["other user", token, "user-7"]]) {
  try {
    codec.open(t, { bind });
  } catch (e) {
    console.log(`${what.padEnd(8)} ${e.name}: ${e.message} (reason for the server log: ${e.reason})`);
  }
}
