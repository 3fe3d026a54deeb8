// The type check's view of pkg/wasm/widget_bg.wasm imported as a module (workerd).
declare const module: WebAssembly.Module;
export default module;
