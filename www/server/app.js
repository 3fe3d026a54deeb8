// The demo MCP server: stateless tic-tac-toe whose game lives in a sealed
// token, not on the server. Platform-neutral (web-standard Request/Response):
// worker.js serves it from workerd; Node code can import it too.
//
// Every HTTP request builds a fresh McpServer (createMcpHandler calls the
// factory per request, for the 2026-07-28 per-request era and for the 2025
// stateless fallback). Nothing about a game survives on the server between
// requests: `start` seals the game into `_meta["ng-mcp-ui/state"]`, the client
// (the widget) echoes it back as the `state` argument of `move`, which opens
// it, plays, and re-seals. Any instance holding the key can serve any request:
// no session affinity.
//
// Configuration (workerd env bindings; plain strings):
//   STATE_KEY        HMAC key, >= 32 bytes, or a JSON list of keys (the first
//                    seals, every one opens: SECURITY.md's rotation). Unset: the
//                    package's dev ephemeral key (one warning per isolate;
//                    tokens die with the isolate and never open on another
//                    instance). With NODE_ENV set to "production" the package
//                    refuses to run without a key.
//   TTL_SECONDS      token lifetime, default DEFAULT_TTL_SECONDS (re-sealing restarts it).
//   LEEWAY_SECONDS   how long past its exp a token still opens, default 0: what
//                    a fleet whose clocks disagree allows for.
//   STATE_CODEC      "mcp-sealed-state" (default) or "sdk": the SDK's own
//                    createRequestStateCodec (./sdk-codec.js), one key, no secret part.
//   CLOCK_SKEW_SECONDS
//                    for tests of a fleet whose clocks disagree (js/fleet): the
//                    codec's clock runs this many seconds ahead (or behind, when
//                    negative); default 0. The SDK's codec has no clock option.
//   ALLOWED_ORIGINS  comma-separated Origin hostnames a browser page may call
//                    from; default localhost, 127.0.0.1, [::1]; "*" allows any.
//   INSTANCE         a label shown by /health and in server logs.
//   MIRROR_TO_STRUCTURED_CONTENT
//                    "1" / "true": also copy the token and the viewUUID of each
//                    result's _meta into its structuredContent, for hosts that
//                    drop _meta (ChatGPT's View notification, ext-apps'
//                    basic-host). Off by default: structuredContent is
//                    model-visible (see mirrorToStructuredContent). A request
//                    may choose for itself with the mirror query (MIRROR_QUERY)
//                    set to 1 or 0 on the MCP path.
//
// The HTTP names (the paths, the principal header, the mirror query, the CORS
// lists) are ./http-names.json's, which the Rust server reads too.
//
// The principal. Tokens are bound (`{ bind }`) to the value of the
// PRINCIPAL_HEADER request header (DEFAULT_PRINCIPAL when absent), so a token sealed
// for one user fails to open for another. THIS IS A DEMO: anyone can set a
// header, so it is not authentication. A real server binds to the
// authenticated principal (the OAuth subject / `authInfo`), never to the
// method or tool: one token legitimately flows through several tools.
//
// Routes: POST/GET/DELETE MCP_PATH (MCP Streamable HTTP), GET HEALTH_PATH, and
// OPTIONS (CORS preflight) for a browser Host page on another local origin.
import { McpServer, createMcpHandler, fromJsonSchema, localhostAllowedOrigins, originValidationResponse } from "@modelcontextprotocol/server";
import { STATE_META_KEY, SealedStateError, StateCodec, mirrorToStructuredContent } from "mcp-sealed-state";
import { GameError, describe, isGame, newGame, play, publicView } from "./game.js";
import HTTP_NAMES from "./http-names.json" with { type: "json" };
import { SDK_CODEC, sdkViewCodec } from "./sdk-codec.js";

export { STATE_META_KEY };
/** The tool result `_meta` key of the per-result id a View keys its local UI state by (ext-apps' "Persisting view state"). */
export const VIEW_UUID_META_KEY = "viewUUID";
export const { mcpPath: MCP_PATH, healthPath: HEALTH_PATH, principalHeader: PRINCIPAL_HEADER, defaultPrincipal: DEFAULT_PRINCIPAL } = HTTP_NAMES;
export const DEFAULT_TTL_SECONDS = 600;
/** STATE_CODEC's values: this package's StateCodec (the default), or the SDK's codec. */
export const DEFAULT_CODEC = "mcp-sealed-state";
export const CODECS = [DEFAULT_CODEC, SDK_CODEC];
export const SERVER_INFO = Object.freeze({ name: "mcp-sealed-state-tic-tac-toe", version: "0.1.0" });
/** The query parameter of MCP_PATH that turns the mirror on ("1") or off ("0") for that request. */
export const MIRROR_QUERY = HTTP_NAMES.mirrorQuery;

/** Request headers a browser Host may send (the preflight allows exactly these): the MCP transport's and the principal header. */
export const CORS_ALLOW_HEADERS = [...HTTP_NAMES.corsAllowHeaders, PRINCIPAL_HEADER];
/** Response headers a browser Host may read. */
export const CORS_EXPOSE_HEADERS = HTTP_NAMES.corsExposeHeaders;

// ---- configuration -------------------------------------------------------

/** Parse the env bindings; throws a clear Error on a bad value. */
export function configFromEnv(env = {}) {
  const key = env.STATE_KEY === undefined || env.STATE_KEY === "" ? undefined : env.STATE_KEY;
  const rawTtl = seconds(env, "TTL_SECONDS", DEFAULT_TTL_SECONDS);
  const leewaySeconds = seconds(env, "LEEWAY_SECONDS", 0);
  const codec = env.STATE_CODEC === undefined || env.STATE_CODEC === "" ? DEFAULT_CODEC : env.STATE_CODEC;
  if (!CODECS.includes(codec)) throw new RangeError(`STATE_CODEC must be ${CODECS.join(" or ")} (got ${JSON.stringify(env.STATE_CODEC)})`);
  const clockSkewSeconds = seconds(env, "CLOCK_SKEW_SECONDS", 0);
  if (clockSkewSeconds !== 0 && codec !== DEFAULT_CODEC) throw new RangeError(`CLOCK_SKEW_SECONDS needs STATE_CODEC=${DEFAULT_CODEC} (the SDK's codec reads Date.now)`);
  const origins = String(env.ALLOWED_ORIGINS ?? "").trim();
  const mirror = parseSwitch(env.MIRROR_TO_STRUCTURED_CONTENT);
  if (mirror === undefined) throw new RangeError(`MIRROR_TO_STRUCTURED_CONTENT must be 1 or 0 (or true, false, on, off; got ${JSON.stringify(env.MIRROR_TO_STRUCTURED_CONTENT)})`);
  return {
    key,
    ttlSeconds: rawTtl,
    leewaySeconds,
    codec,
    clockSkewSeconds,
    // workerd has no process.env: a NODE_ENV binding goes to the package, which
    // reads it by its one rule (docs/server.md); unset, it reads NODE_ENV where it can.
    nodeEnv: env.NODE_ENV,
    allowedOrigins:
      origins === ""
        ? localhostAllowedOrigins()
        : origins
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
    instance: env.INSTANCE ?? "default",
    mirror,
  };
}

// A whole number of seconds from the binding `name`, `fallback` when unset or empty.
function seconds(env, name, fallback) {
  const raw = env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(value)) throw new RangeError(`${name} must be an integer number of seconds (got ${JSON.stringify(raw)})`);
  return value;
}

// A switch as the Rust server's clap reads it (BoolishValueParser): on, off
// (also when unset or empty), or undefined for anything else (refused).
const SWITCH_ON = ["1", "true", "t", "yes", "y", "on"];
const SWITCH_OFF = ["", "0", "false", "f", "no", "n", "off"];
function parseSwitch(value) {
  if (value === undefined || value === null) return false;
  const text = String(value).trim().toLowerCase();
  return SWITCH_ON.includes(text) ? true : SWITCH_OFF.includes(text) ? false : undefined;
}

/**
 * Whether this request's results mirror the token and the viewUUID into
 * structuredContent: MIRROR_QUERY set to 1 or 0 on the MCP URL (a Host's
 * connector URL can carry it), else the server's setting. Undefined for another value.
 */
export function mirrorFor(url, config) {
  const asked = url.searchParams.get(MIRROR_QUERY);
  return asked === null ? config.mirror : parseSwitch(asked);
}

// One codec per configuration per isolate. The codec is configuration, not
// session state; caching it matters for the dev ephemeral key (a codec per
// request would draw a new key per request and no token would ever open).
// It is made on the first request, not at module scope, because workerd
// forbids generating random values (the ephemeral key) in global scope.
const codecs = new Map();

/** The codec for this configuration (cached): a StateCodec, or the SDK's behind the same seam. Throws a clear error on a bad key. */
export function codecFor(config) {
  const id = JSON.stringify([config.codec, config.key ?? null, config.ttlSeconds, config.leewaySeconds, config.clockSkewSeconds, config.nodeEnv ?? null]);
  let codec = codecs.get(id);
  if (codec === undefined) {
    codec =
      config.codec === SDK_CODEC
        ? sdkViewCodec(config)
        : new StateCodec({
            key: config.key,
            ttlSeconds: config.ttlSeconds,
            leewaySeconds: config.leewaySeconds,
            ...(config.clockSkewSeconds !== 0 && { now: () => Date.now() + config.clockSkewSeconds * 1000 }),
            ...(config.nodeEnv !== undefined && { env: { NODE_ENV: config.nodeEnv } }),
          });
    codecs.set(id, codec);
  }
  return codec;
}

/** The principal a token is bound to: the PRINCIPAL_HEADER header, or DEFAULT_PRINCIPAL. */
export function principalOf(request) {
  const value = request.headers.get(PRINCIPAL_HEADER)?.trim();
  return value ? value : DEFAULT_PRINCIPAL;
}

// ---- the MCP server --------------------------------------------------------

const moveInput = fromJsonSchema({
  type: "object",
  properties: {
    state: { type: "string", minLength: 1, description: `The token from the last result's _meta["${STATE_META_KEY}"]` },
    cell: { type: "integer", minimum: 0, maximum: 8, description: "Cell 0-8, row by row" },
  },
  required: ["state", "cell"],
  additionalProperties: false,
});

// The demo's secret part as this server (and rust-server) writes it.
const isSecret = (s) => s !== null && typeof s === "object" && typeof s.gameId === "string" && Number.isSafeInteger(s.moves);

/**
 * A fresh McpServer with the `start` and `move` tools, for one request.
 *
 * options:
 *   codec      StateCodec, or sdkViewCodec(); seal may return a promise (required)
 *   principal  the bind value for this request (required)
 *   toolMeta   merged into both tools' `_meta` (e.g. `{ ui: { resourceUri } }`
 *              for an MCP Apps View)
 *   extend     (server, { codec, principal }) => void: register more tools or
 *              the View's `ui://` resource on the same server
 *   mirror     true: every result also carries the token and the viewUUID in
 *              structuredContent (mirrorToStructuredContent); default false
 *   onRefused  ({ tool, reason, principal }) => void: a token failed to open;
 *              `reason` is for server logs only and never reaches the client
 *   serverInfo { name, version }
 */
export function buildDemoServer({ codec, principal, toolMeta, extend, onRefused, mirror = false, serverInfo = SERVER_INFO }) {
  if (typeof codec?.seal !== "function" || typeof codec.openWithSecret !== "function") throw new TypeError("buildDemoServer: codec must be a StateCodec or sdkViewCodec()");
  if (typeof principal !== "string") throw new TypeError("buildDemoServer: principal must be a string");
  const server = new McpServer({ ...serverInfo });

  // What the server keeps from the client, the Host and the model: its own id
  // for the game and the move count, in the token's secret part.
  const result = async (game, lastMove, secret) => {
    const out = {
      content: [{ type: "text", text: describe(game, { lastMove }) }],
      structuredContent: publicView(game, { lastMove }),
      // Not model-visible: the widget adopts the token and echoes it back as `state`;
      // a fresh viewUUID per result lets a View keep its UI state per rendered result (ext-apps' pattern).
      _meta: { [STATE_META_KEY]: await codec.seal(game, { bind: principal, secret }), [VIEW_UUID_META_KEY]: crypto.randomUUID() },
    };
    return mirror ? mirrorToStructuredContent(out) : out;
  };

  server.registerTool(
    "start",
    {
      title: "New tic-tac-toe game",
      description: "Start a new game of tic-tac-toe against the server. You are X and move first.",
      ...(toolMeta && { _meta: { ...toolMeta } }),
    },
    async () => result(newGame(), null, { gameId: crypto.randomUUID(), moves: 0 }),
  );

  server.registerTool(
    "move",
    {
      title: "Play a move",
      description: `Place X at a cell (0-8, row by row); the server answers with O. Pass the token from the previous result's _meta["${STATE_META_KEY}"] as state.`,
      inputSchema: moveInput,
      ...(toolMeta && { _meta: { ...toolMeta } }),
    },
    async ({ state, cell }) => {
      let game;
      let secret;
      try {
        ({ payload: game, secret } = await codec.openWithSecret(state, { bind: principal }));
      } catch (error) {
        if (error instanceof SealedStateError) onRefused?.({ tool: "move", reason: error.reason, principal });
        // The SDK turns the throw into { isError: true, content: [{ text: error.message }] };
        // for a SealedStateError that is always SEALED_STATE_INVALID_MESSAGE.
        throw error;
      }
      if (!isGame(game)) throw new GameError("That state is not a tic-tac-toe game.");
      const next = play(game, cell);
      // A token sealed before the secret part (or by a server without it) starts a new id.
      const kept = isSecret(secret) ? secret : { gameId: crypto.randomUUID(), moves: 0 };
      return result(next.game, { player: cell, computer: next.computer }, { gameId: kept.gameId, moves: kept.moves + 1 });
    },
  );

  extend?.(server, { codec, principal });
  return server;
}

// ---- HTTP: CORS, routes ------------------------------------------------------

/** CORS headers for this request, or null when its Origin is not allowed. */
export function corsHeaders(request, allowedOrigins) {
  const origin = request.headers.get("Origin");
  const headers = new Headers({ Vary: "Origin" });
  if (origin === null) return headers; // not a browser cross-origin call
  if (!allowedOrigins.includes("*") && originValidationResponse(request, allowedOrigins) !== undefined) return null;
  headers.set("Access-Control-Allow-Origin", origin);
  headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS.join(", "));
  return headers;
}

function withHeaders(response, extra) {
  const out = new Response(response.body, response);
  for (const [name, value] of extra) out.headers.set(name, value);
  return out;
}

const json = (status, body, headers) => {
  const out = Response.json(body, { status });
  return headers ? withHeaders(out, headers) : out;
};

/**
 * The whole HTTP surface. `options` is passed on to buildDemoServer
 * (toolMeta, extend, serverInfo), plus:
 *   log  (level, message) => void, default console; gets one line per refused token.
 */
export async function handleRequest(request, env = {}, options = {}) {
  const url = new URL(request.url);
  const log = options.log ?? ((level, message) => console[level](message));

  let config;
  try {
    config = configFromEnv(env);
  } catch (error) {
    return json(500, { ok: false, error: error.message });
  }

  // Browser calls from a page on another origin: reflect an allowed Origin;
  // refuse others (MCP's Streamable HTTP asks servers to validate Origin, which
  // also stops DNS rebinding against a server on localhost).
  const cors = corsHeaders(request, config.allowedOrigins);
  if (cors === null) {
    return json(403, { jsonrpc: "2.0", error: { code: -32000, message: "Origin not allowed" }, id: null }, new Headers({ Vary: "Origin" }));
  }
  if (request.method === "OPTIONS") {
    cors.set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
    cors.set("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS.join(", "));
    cors.set("Access-Control-Max-Age", "600");
    return new Response(null, { status: 204, headers: cors });
  }

  let codec;
  try {
    codec = codecFor(config);
  } catch (error) {
    // Key too short, production without a key, ...: the package's message, no secrets in it.
    log("error", `[${config.instance}] cannot build the state codec: ${error.message}`);
    return json(500, { ok: false, error: error.message }, cors);
  }

  if (url.pathname === HEALTH_PATH && (request.method === "GET" || request.method === "HEAD")) {
    return json(
      200,
      {
        ok: true,
        instance: config.instance,
        codec: config.codec,
        ttlSeconds: config.ttlSeconds,
        leewaySeconds: config.leewaySeconds,
        ephemeralKey: config.key === undefined,
        principalHeader: PRINCIPAL_HEADER,
      },
      cors,
    );
  }
  if (url.pathname !== MCP_PATH) return json(404, { ok: false, error: "not found" }, cors);

  const mirror = mirrorFor(url, config);
  if (mirror === undefined) return json(400, { jsonrpc: "2.0", error: { code: -32600, message: `${MIRROR_QUERY} must be 1 or 0` }, id: null }, cors);
  const principal = principalOf(request);
  const handler = createMcpHandler(
    () =>
      buildDemoServer({
        codec,
        principal,
        toolMeta: options.toolMeta,
        extend: options.extend,
        serverInfo: options.serverInfo,
        mirror,
        onRefused: ({ tool, reason }) => log("warn", `[${config.instance}] ${tool}: sealed state refused, reason=${reason}, principal=${JSON.stringify(principal)}`),
      }),
    { onerror: (error) => log("error", `[${config.instance}] mcp: ${error?.message ?? error}`) },
  );
  return withHeaders(await handler.fetch(request), cors);
}
