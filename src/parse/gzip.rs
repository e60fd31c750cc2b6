//! Streaming gzip decompression (pure Rust), so `.gz` files load chunk by chunk
//! in the browser exactly as plain files do.

use std::io::Write;

pub struct Inflater {
    decoder: flate2::write::MultiGzDecoder<Vec<u8>>,
}

impl Default for Inflater {
    fn default() -> Self {
        Self::new()
    }
}

impl Inflater {
    pub fn new() -> Self {
        Inflater {
            decoder: flate2::write::MultiGzDecoder::new(Vec::new()),
        }
    }

    /// Decompresses the next compressed chunk; returns the bytes it produced.
    pub fn push(&mut self, compressed: &[u8]) -> Result<Vec<u8>, String> {
        self.decoder
            .write_all(compressed)
            .map_err(|e| format!("the gzip stream is damaged ({e})"))?;
        Ok(std::mem::take(self.decoder.get_mut()))
    }

    /// Ends the stream; an unfinished stream is an error.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        self.decoder
            .finish()
            .map_err(|e| format!("the gzip stream ends early ({e})"))
    }
}

/// The two bytes every gzip file starts with.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, LoadOptions, Parsed, Parser};
    use std::io::Write;

    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn gzip_files_parse_like_plain_ones_in_any_chunking() {
        let text = b"label,score\n1,0.9\n0,0.1\n";
        let packed = gz(text);
        for size in [1, 2, 3, 7, packed.len()] {
            let mut p = Parser::new("b.csv.gz", LoadOptions::default());
            for c in packed.chunks(size) {
                p.feed(c);
            }
            match p.finish().unwrap() {
                Parsed::Binary(b) => assert_eq!(b.labels, vec![true, false]),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_truncated_gzip_file_is_a_clear_error() {
        let packed = gz(b"label,score\n1,0.9\n0,0.1\n");
        let err = parse_bytes(
            "b.csv.gz",
            &packed[..packed.len() / 2],
            &LoadOptions::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("gzip"), "{err}");
    }

    #[test]
    fn a_one_byte_file_is_handled() {
        assert!(parse_bytes("x.csv", b"a", &LoadOptions::default()).is_err());
    }
}
