// The conformance suite's MRTR server (js/conformance/server.mjs: its tools and
// prompt) on agents' createMcpHandler, as a Worker. env.CODEC picks what sits
// behind the SDK's requestState seam: our createRequestStateCodec (default) or
// StateCodec's sealRequestState/openRequestState. GET /reasons: the reasons the
// seam refused, for the test to compare.
import { createMcpHandler } from "agents/mcp/server";
import { SealedStateError, StateCodec, createRequestStateCodec } from "mcp-sealed-state";
import { viaStateCodec, viaVerifySeam } from "../../conformance/request-state.mjs";
import { mrtrFactory } from "../../conformance/server.mjs";

let state;

export default {
  fetch(request, env, ctx) {
    state ??= env.CODEC === "StateCodec" ? viaStateCodec(new StateCodec({ key: env.STATE_KEY }), SealedStateError) : viaVerifySeam(createRequestStateCodec({ key: env.STATE_KEY }));
    if (new URL(request.url).pathname === "/reasons") return Response.json(state.reasons);
    return createMcpHandler(mrtrFactory(state))(request, env, ctx);
  },
};
