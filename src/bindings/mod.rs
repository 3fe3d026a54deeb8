//! The wasm surface: a thin layer over the core, shaped for the JS glue in
//! `pkg-template/`. Payloads cross as JSON text (the glue calls
//! `JSON.stringify` / `JSON.parse`), so nothing is serialized twice, and
//! failures cross as small codes the glue turns into JS errors.

/// Compiled natively too, so the native tests can check the JS copy of it.
pub mod protocol;

/// The I/O path of the edge exports, compiled natively too for the fuzz targets.
#[cfg(feature = "edge")]
pub mod io;

#[cfg(target_arch = "wasm32")]
pub mod widget;

#[cfg(all(target_arch = "wasm32", feature = "edge"))]
pub mod edge;

// A smaller allocator than the default dlmalloc: the widget pays for every byte.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
#[allow(unsafe_code)]
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };
