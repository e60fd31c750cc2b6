//! The leaderboard page's entry point (a team's catalog of runs; built for
//! wasm32 by Trunk into dist/board/, so the dashboard never loads its code).

#[cfg(target_arch = "wasm32")]
fn main() {
    rankscope::app::board::main();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("rankscope-board is the browser's leaderboard page: `bash scripts/build.sh` builds it into dist/board/.");
}
