//! Any bytes as a transferred (or saved) data block: refused or consistent, and
//! a consistent block merges and evaluates without panicking.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rankscope::robustness::decode_transfer(data));
