//! Any bytes as a session file (odd first byte: sealed with a valid checksum,
//! as a crafted session would be): refused, or a workspace that evaluates and
//! saves and restores unchanged.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rankscope::robustness::import_session(data));
