//! The browser app's loading worker (built for wasm32 by Trunk; see `app::worker`).

#[cfg(target_arch = "wasm32")]
fn main() {
    rankscope::app::worker::worker_main();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "rankscope-worker runs inside the browser app: build it with `trunk build --release`."
    );
}
