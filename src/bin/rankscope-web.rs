//! The browser app's entry point (built for wasm32 by Trunk).

#[cfg(target_arch = "wasm32")]
fn main() {
    rankscope::app::main();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("rankscope-web is the browser app: build it with `trunk build --release` and open dist/index.html.");
}
