//! Any bytes, under any file name hint and any chunking, through the parser,
//! the workspace merge and every metric: nothing may panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rankscope::robustness::parse_any(data));
