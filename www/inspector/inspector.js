// Token inspector: reads a token without the key (what it CLAIMS), and verifies
// it with the key in this tab, with the edge build of mcp-sealed-state (the
// reader is the widget entry's, as in a View).
// The key is read from the input, handed to the wasm codec and dropped: it is
// never sent, stored, logged, or put in the URL (the page's CSP also forbids
// connections to other origins). A token may come in the URL fragment
// (#token=v1...), which browsers never send to a server.
import { StateCodec, SealedStateError } from "/pkg/edge/browser.js";
import { readTokenUnverified, secondsLeft } from "/pkg/widget/browser.js";

const $ = (id) => document.getElementById(id);
const tokenEl = $("token");
const keyEl = $("key");
const encodingEl = $("key-encoding");
const methodEl = $("method");
const toolEl = $("tool");
const bindEl = $("bind");
const resultEl = $("verify-result");

// What each reason means, for a person (servers keep the reason out of their error message;
// this page has the key, so it may say which check failed).
const REASONS = {
  malformed: "It is not a well-formed v1 token (shape, base64url, size or JSON).",
  mac: "The signature does not match this key: a different key, or the token was altered.",
  expired: "The signature is good, but the token has expired.",
  bind: "The signature is good, but the token is bound to another principal (or the binding given here does not match).",
  purpose: "The signature is good, but it was minted for another purpose or another tool.",
};

const METHOD_LABEL = {
  open: "open(token)",
  openRequestState: "openRequestState(token, tool)",
  verify: "verify(token)",
};

let claims = null; // readTokenUnverified() of the current token, or null
let toolTouched = false; // the user typed a tool: stop prefilling it

const tokenValue = () => tokenEl.value.trim();

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

const pretty = (v) => JSON.stringify(v, null, 2);

function formatLeft(s) {
  if (s <= 0) return "expired";
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

// ---------------------------------------------------------------- claims (no key)
function renderClaims() {
  const token = tokenValue();
  claims = null;
  $("claims-empty").hidden = token !== "";
  $("claims-error").hidden = true;
  $("claims-body").hidden = true;
  $("claims").dataset.status = "idle";
  if (!token) return;
  try {
    claims = readTokenUnverified(token);
  } catch {
    $("claims-error").hidden = false;
    $("claims").dataset.status = "malformed";
    return;
  }
  const purposeText = { view: "view (widget) token", requestState: "MRTR requestState" };
  const purpose = $("claim-purpose");
  purpose.replaceChildren(
    claims.purpose ? el("span", { class: "badge accent" }, claims.purpose) : el("span", { class: "badge" }, "none"),
    " ",
    el("span", { class: "muted" }, claims.purpose ? purposeText[claims.purpose] : "a raw SDK token (createRequestStateCodec)"),
  );
  $("claim-tool").replaceChildren(claims.tool ? el("code", {}, claims.tool) : el("span", { class: "faint" }, "—"));
  const when = new Date(claims.exp * 1000);
  $("claim-exp").replaceChildren(el("span", {}, when.toLocaleString()), " ", el("span", { class: "faint mono" }, `(exp ${claims.exp}, ${when.toISOString()})`));
  $("claim-bound").replaceChildren(
    claims.bound ? el("span", { class: "badge warn" }, "bound") : el("span", { class: "badge" }, "not bound"),
    " ",
    el("span", { class: "muted" }, claims.bound ? "opens only for the principal it was sealed for" : "opens for anyone with the key"),
  );
  $("claim-secret").replaceChildren(
    claims.hasSecret ? el("span", { class: "badge accent" }, "encrypted") : el("span", { class: "badge" }, "none"),
    " ",
    el("span", { class: "muted" }, claims.hasSecret ? "a secret part only the server's key reads; it is there, and unreadable here" : "no secret part"),
  );
  $("claim-payload").textContent = pretty(claims.payload);
  $("claims-body").hidden = false;
  $("claims").dataset.status = "ok";
  if (!toolTouched) toolEl.value = claims.tool ?? "";
  renderLeft();
}

function renderLeft() {
  const token = tokenValue();
  if (!claims || !token) return;
  let left;
  try {
    left = secondsLeft(token);
  } catch {
    return;
  }
  const out = $("claim-left");
  out.textContent = left > 0 ? `${formatLeft(left)} (by this computer's clock)` : "expired (by this computer's clock)";
  out.classList.toggle("expired", left <= 0);
  out.dataset.seconds = String(left);
}

// ---------------------------------------------------------------- verification (key)
function keyBytes(text, encoding) {
  if (encoding === "text") return text; // the codec UTF-8 encodes strings
  const clean = text.replace(/\s+/g, "");
  if (encoding === "hex") {
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(clean)) throw new Error("not an even number of hex digits");
    return Uint8Array.from(clean.match(/../g) ?? [], (h) => parseInt(h, 16));
  }
  const b64 = clean.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]*$/.test(b64) || b64.length % 4 === 1) throw new Error("not base64");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

function chosenMethod() {
  const m = methodEl.value;
  if (m !== "auto") return m;
  if (claims?.purpose === "requestState") return "openRequestState";
  if (claims?.purpose === "view") return "open";
  if (claims && claims.purpose === null) return "verify";
  return "open";
}

function showResult(status, ...children) {
  resultEl.dataset.status = status;
  resultEl.replaceChildren(...children);
}

function verifyNow() {
  const token = tokenValue();
  const key = keyEl.value;
  const method = chosenMethod();
  $("tool-field").classList.toggle("faint", method !== "openRequestState");
  delete resultEl.dataset.reason;
  if (!token || !key) {
    showResult("idle", el("p", { class: "empty" }, !token ? "Paste a token first." : "Enter the key to verify."));
    return;
  }
  let codec;
  try {
    codec = new StateCodec({ key: keyBytes(key, encodingEl.value), production: true });
  } catch (e) {
    showResult("key-error", el("div", { class: "notice warn" }, "This key cannot be used.", el("small", {}, e.message)));
    return;
  }
  const bind = bindEl.value.trim();
  const opts = bind ? { bind } : {};
  try {
    let payload;
    if (method === "openRequestState") {
      const tool = toolEl.value.trim();
      payload = codec.openRequestState(token, tool, opts);
    } else {
      payload = codec[method](token, opts);
    }
    showResult(
      "ok",
      el(
        "div",
        { class: "notice ok", id: "verify-ok" },
        "✓ Genuine: signed with this key, unaltered, not expired",
        el("small", {}, el("span", { class: "method" }, METHOD_LABEL[method]), bind ? ` · bound to “${bind}”` : ""),
      ),
      el("pre", { class: "json", id: "verified-payload" }, pretty(payload)),
    );
  } catch (e) {
    if (!(e instanceof SealedStateError)) throw e;
    resultEl.dataset.reason = e.reason;
    showResult(
      "fail",
      el(
        "div",
        { class: "notice bad" },
        "✗ Rejected: ",
        el("code", { id: "verify-reason" }, e.reason),
        el("small", {}, REASONS[e.reason] ?? e.message),
        el("small", { class: "method" }, `${METHOD_LABEL[method]} → ${e.name}: ${e.message}`),
      ),
    );
    resultEl.dataset.reason = e.reason;
  } finally {
    codec.free();
  }
}

function update() {
  renderClaims();
  verifyNow();
}

// ---------------------------------------------------------------- wiring
tokenEl.addEventListener("input", update);
for (const e of [keyEl, bindEl, toolEl]) e.addEventListener("input", verifyNow);
for (const e of [encodingEl, methodEl]) e.addEventListener("change", verifyNow);
toolEl.addEventListener("input", () => (toolTouched = toolEl.value !== ""));
$("verify-form").addEventListener("submit", (e) => e.preventDefault());
$("key-show").addEventListener("click", () => {
  const show = keyEl.type === "password";
  keyEl.type = show ? "text" : "password";
  $("key-show").textContent = show ? "Hide" : "Show";
  $("key-show").setAttribute("aria-pressed", String(show));
});
$("clear").addEventListener("click", () => {
  for (const e of [tokenEl, keyEl, bindEl, toolEl]) e.value = "";
  toolTouched = false;
  update();
});
$("sample").addEventListener("click", () => {
  // A throwaway key made up here; the sample is sealed and verified in this tab only.
  const key = "sample key, made up in this page: not a secret";
  const codec = new StateCodec({ key, ttlSeconds: 600 });
  try {
    tokenEl.value = codec.seal({ board: "X...O....", turn: "X", moves: 2 });
  } finally {
    codec.free();
  }
  keyEl.value = key;
  encodingEl.value = "text";
  bindEl.value = "";
  toolTouched = false;
  update();
});

setInterval(renderLeft, 1000);

const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromHash) tokenEl.value = fromHash;
update();
document.documentElement.dataset.ready = "true";
