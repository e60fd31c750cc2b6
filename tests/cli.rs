//! The command-line tool's `generate --kind parsed`: the file the build puts
//! next to the app (`dist/example.bin`) is the example the page would parse.

use std::process::Command;

#[test]
fn generate_parsed_writes_the_example_as_the_page_reads_it() {
    let dir = std::env::temp_dir().join(format!("rankscope-cli-{}", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_rankscope");
    let status = Command::new(bin)
        .args([
            "generate", "--preset", "example", "--kind", "parsed", "--out",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    let written = std::fs::read(dir.join("example.bin")).unwrap();
    assert_eq!(written, rankscope::example::example_parsed());
    assert_eq!(
        rankscope::parse::transfer::decode_many(&written)
            .unwrap()
            .len(),
        rankscope::example::example_files().len()
    );
    // only the bundled example has a parsed form
    let out = Command::new(bin)
        .args(["generate", "--preset", "large", "--kind", "parsed", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--preset example"));
    std::fs::remove_dir_all(&dir).unwrap();
}
