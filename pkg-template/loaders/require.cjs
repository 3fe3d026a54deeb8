// CommonJS: require() of the package's Node ES module entry ({{BUILD}}/node.js),
// which Node supports unflagged from 20.19 and 22.12, and Bun. The same
// module instance serves require and import: one SealedStateError class and
// one wasm instance per build, so instanceof holds across both.
module.exports = require("./node.js");
