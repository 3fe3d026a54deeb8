// Keep a third-party Node server on loopback, for the tests that run one
// whose code we do not control (the MCPJam Inspector listens on 0.0.0.0 and
// reports to Sentry and PostHog with no switch to turn either off). Load it
// before the server's own code:
//
//   node --import ./js/lib/loopback-guard.mjs server.js
//
// Then, in that process:
// - every `listen` on a port binds 127.0.0.1, whatever host it asked for;
// - every DNS lookup (`dns.lookup`, `dns.promises.lookup`) of a name other
//   than localhost fails as an unknown name does (ENOTFOUND);
// - every TCP connection (`net.Socket#connect`: `net.connect`, `http`,
//   `https`, `tls` and undici's `fetch` all go through it) to a host that is
//   not loopback fails the same way, before any packet leaves.
// Each refused host is reported once on stderr, as `[loopback-guard] refused
// connect HOST` (or `lookup`), so a test can say what was kept in.
import dns from "node:dns";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const LOOPBACK_HOST = "127.0.0.1";
const LOCAL_NAMES = new Set(["localhost", "localhost.", "ip6-localhost", "ip6-loopback"]);

/** Whether `host` is loopback: a local name, 127.0.0.0/8 or ::1 (bracketed or not). */
export function isLoopback(host) {
  if (typeof host !== "string" || host === "") return false;
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (LOCAL_NAMES.has(h) || h.endsWith(".localhost")) return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (net.isIPv6(h)) return h === "::1" || h === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(h);
  return false;
}

const reported = new Set();
function refused(what, host) {
  const key = `${what} ${host}`;
  if (!reported.has(key)) {
    reported.add(key);
    process.stderr.write(`[loopback-guard] refused ${key}\n`);
  }
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (kept on loopback by loopback-guard.mjs)`), {
    code: "ENOTFOUND",
    errno: dns.NOTFOUND,
    syscall: "getaddrinfo",
    hostname: host,
  });
}

// listen(port[, host][, backlog][, cb]) and listen({ port, host, ... }); a
// path, handle or fd (no TCP port) is left as it is.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function guardedListen(...args) {
  const [first] = args;
  if (first !== null && typeof first === "object" && !("path" in first) && !("handle" in first) && !("fd" in first) && !("_handle" in first)) {
    args[0] = { ...first, host: LOOPBACK_HOST };
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] === "string" || args[1] === null || args[1] === undefined) args[1] = LOOPBACK_HOST;
    else args.splice(1, 0, LOOPBACK_HOST);
  } else if (first === undefined || typeof first === "function") {
    args.unshift(0, LOOPBACK_HOST); // listen() / listen(cb): any port, on loopback
  }
  return listen.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, options, callback) {
  const cb = typeof options === "function" ? options : callback;
  if (isLoopback(hostname) || typeof cb !== "function") return lookup.call(this, hostname, options, callback);
  const error = refused("lookup", hostname);
  process.nextTick(() => cb(error));
  return {};
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async function guardedPromisesLookup(hostname, options) {
  if (!isLoopback(hostname)) throw refused("lookup", hostname);
  return promisesLookup.call(this, hostname, options);
};

// net.Socket#connect(options[, cb]), (port[, host][, cb]), (path[, cb]); the
// options may also come as an array (the normalized form net.connect passes).
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  let host;
  if (options !== null && typeof options === "object") {
    if (!options.path) host = options.host || "localhost"; // net connects to a path when it is truthy
  } else if (typeof options === "number" || (typeof options === "string" && /^\d+$/.test(options))) {
    host = typeof args[1] === "string" ? args[1] : "localhost";
  }
  if (host !== undefined && !isLoopback(host)) {
    const error = refused("connect", host);
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

// ESM named imports of node:dns see the patched functions too.
syncBuiltinESMExports();
