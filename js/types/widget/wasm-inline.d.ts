// The type check's view of pkg/widget/wasm-inline.js, which js/build.mjs writes.
export declare const WIDGET_WASM_HEX: string;
