// The type check's view of pkg/wasm/edge.js: wasm-bindgen's own declarations of the edge build (build/edge/).
export * from "../../../build/edge/edge.js";
export { default } from "../../../build/edge/edge.js";
