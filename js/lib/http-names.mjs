// The demo servers' HTTP names (the paths, the principal header, the mirror
// query, the CORS lists), for their Node clients and tests: read from their one
// definition, www/server/http-names.json, which both servers read. Read, not
// imported: Node 20 warns on JSON modules, and js/lib imports only js/lib.
import { readFileSync } from "node:fs";

/** www/server/http-names.json: `{ mcpPath, healthPath, principalHeader, defaultPrincipal, mirrorQuery, corsAllowHeaders, corsExposeHeaders }`. */
export const HTTP_NAMES = Object.freeze(JSON.parse(readFileSync(new URL("../../www/server/http-names.json", import.meta.url), "utf8")));

/** Every request header a browser Host may send: the MCP transport's and the principal header (as both servers allow them). */
export const CORS_ALLOW_HEADERS = Object.freeze([...HTTP_NAMES.corsAllowHeaders, HTTP_NAMES.principalHeader]);
