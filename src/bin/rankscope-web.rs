//! The browser app's entry point (built for wasm32 by Trunk).

/// Talc instead of the default dlmalloc: the page wasm has a size budget.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    rankscope::app::main();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("rankscope-web is the browser app: build it with `trunk build --release` and open dist/index.html.");
}
