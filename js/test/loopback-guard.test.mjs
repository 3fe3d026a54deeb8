// js/lib/loopback-guard.mjs in a real child process (`node --import`), as the
// MCPJam e2e test loads it: what asks for 0.0.0.0 listens on 127.0.0.1, names
// other than localhost do not resolve, connections off loopback fail before a
// packet leaves, and loopback keeps working.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const GUARD = fileURLToPath(new URL("../lib/loopback-guard.mjs", import.meta.url));

// Runs under the guard; prints one JSON line of what it saw.
const PROBE = `
import dns from "node:dns";
import { lookup as namedLookup } from "node:dns";
import http from "node:http";
import net from "node:net";
const outcome = (p) => p.then((v) => ({ ok: typeof v === "object" ? String(v?.constructor?.name) : v }), (e) => ({ code: e.code ?? e.cause?.code ?? e.message }));
const listening = (server, ...args) => new Promise((resolve) => server.listen(...args, () => resolve(server.address())));
const servers = [];
const serve = () => { const s = http.createServer((req, res) => res.end("local")); servers.push(s); return s; };
const addresses = {
  portHost: await listening(serve(), 0, "0.0.0.0"),
  options: await listening(serve(), { port: 0, host: "::" }),
  portOnly: await listening(serve(), 0),
};
const port = addresses.portHost.port;
const connectTo = (host) => outcome(new Promise((resolve, reject) => {
  const socket = net.connect({ host, port }, () => { socket.end(); resolve("connected"); });
  socket.once("error", reject);
}));
const seen = {
  addresses: Object.fromEntries(Object.entries(addresses).map(([k, a]) => [k, a.address])),
  lookup: await outcome(new Promise((resolve, reject) => dns.lookup("example.com", (e, a) => (e ? reject(e) : resolve(a))))),
  namedLookup: await outcome(new Promise((resolve, reject) => namedLookup("example.com", {}, (e, a) => (e ? reject(e) : resolve(a))))),
  promisesLookup: await outcome(dns.promises.lookup("example.com")),
  localhostLookup: await outcome(dns.promises.lookup("localhost", { family: 4 }).then((a) => a.address)),
  connectIp: await connectTo("10.255.255.1"),
  connectName: await connectTo("example.com"),
  connectLoopback: await connectTo("127.0.0.1"),
  fetchRemote: await outcome(fetch("http://example.com/")),
  fetchLocal: await outcome(fetch("http://localhost:" + port + "/").then((r) => r.text())),
  httpRemote: await outcome(new Promise((resolve, reject) => http.get("http://93.184.215.14/", resolve).once("error", reject))),
};
for (const s of servers) s.close();
console.log(JSON.stringify(seen));
`;

test("loopback-guard: listen binds 127.0.0.1, lookups and connections off loopback fail as ENOTFOUND and are reported, loopback works", async () => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", GUARD, "--input-type=module", "-e", PROBE], { timeout: 30_000 });
  const seen = JSON.parse(stdout);
  assert.deepEqual(seen.addresses, { portHost: "127.0.0.1", options: "127.0.0.1", portOnly: "127.0.0.1" });
  for (const key of ["lookup", "namedLookup", "promisesLookup", "connectIp", "connectName", "fetchRemote", "httpRemote"]) {
    assert.deepEqual(seen[key], { code: "ENOTFOUND" }, key);
  }
  assert.deepEqual(seen.localhostLookup, { ok: "127.0.0.1" });
  assert.deepEqual(seen.connectLoopback, { ok: "connected" });
  assert.deepEqual(seen.fetchLocal, { ok: "local" });
  const reported = stderr
    .split("\n")
    .filter((l) => l.startsWith("[loopback-guard] refused "))
    .sort();
  assert.deepEqual(reported, [
    "[loopback-guard] refused connect 10.255.255.1",
    "[loopback-guard] refused connect 93.184.215.14",
    "[loopback-guard] refused connect example.com",
    "[loopback-guard] refused lookup example.com",
  ]);
});
