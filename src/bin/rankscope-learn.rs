//! The teaching page's entry point (lessons and playgrounds; built for wasm32
//! by Trunk into dist/learn/, so the dashboard never loads its code).

#[cfg(target_arch = "wasm32")]
fn main() {
    rankscope::app::learn::main();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("rankscope-learn is the browser's teaching page: `bash scripts/build.sh` builds it into dist/learn/.");
}
