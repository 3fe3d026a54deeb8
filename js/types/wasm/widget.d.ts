// The type check's view of pkg/wasm/widget.js: wasm-bindgen's own declarations of the widget build (build/widget/).
export * from "../../../build/widget/widget.js";
export { default } from "../../../build/widget/widget.js";
