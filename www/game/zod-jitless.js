// Imported FIRST by game.js, so it runs before ext-apps defines its schemas:
// zod (which ext-apps validates messages with) probes `new Function("")` when
// an object schema is built, to decide whether to compile fast parsers. Under
// a View CSP without 'unsafe-eval' (both of the demo Host's policies, and the
// spec's default) the probe fails quietly but is still reported as a
// `securitypolicyviolation`. jitless skips the probe; parsing is unchanged.
import { config } from "zod/v4";

config({ jitless: true });
