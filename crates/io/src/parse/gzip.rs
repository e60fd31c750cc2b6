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

    /// Decompresses the next compressed chunk, handing the text it produces
    /// to `text` in pieces of at most [`MAX_PIECE`] bytes (deflate inflates at
    /// most 1032-fold, so [`SLICE`] compressed bytes give at most ~8.5 MB):
    /// memory stays bounded however much the stream inflates. `text` returns
    /// false to stop (the text is refused already): the rest is not inflated.
    pub fn push(
        &mut self,
        compressed: &[u8],
        text: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<(), String> {
        for slice in compressed.chunks(SLICE) {
            self.decoder
                .write_all(slice)
                .map_err(|e| format!("the gzip stream is damaged ({e})"))?;
            let out = self.decoder.get_mut();
            let go_on = out.is_empty() || text(out);
            out.clear();
            if !go_on {
                break;
            }
        }
        Ok(())
    }

    /// Ends the stream, handing the last text to `text`; an unfinished
    /// stream is an error.
    pub fn finish(&mut self, text: &mut dyn FnMut(&[u8]) -> bool) -> Result<(), String> {
        self.decoder
            .try_finish()
            .map_err(|e| format!("the gzip stream ends early ({e})"))?;
        let out = self.decoder.get_mut();
        if !out.is_empty() {
            text(out);
        }
        out.clear();
        Ok(())
    }
}

/// Compressed bytes inflated at a time.
pub const SLICE: usize = 8 << 10;
/// The most text one [`SLICE`] can inflate to (deflate's ratio is at most
/// 1032:1; the gzip decoder adds its 32 KiB buffer).
pub const MAX_PIECE: usize = SLICE * 1032 + (32 << 10);

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

    /// `n` zero-compressed newlines (a "gzip bomb" of about n / 1000 bytes).
    fn bomb(n: usize) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let block = vec![b'\n'; 1 << 20];
        for _ in 0..n >> 20 {
            e.write_all(&block).unwrap();
        }
        e.finish().unwrap()
    }

    #[test]
    fn text_is_inflated_in_bounded_pieces() {
        let packed = bomb(16 << 20);
        assert!(packed.len() < 100_000, "{}", packed.len());
        let mut inflater = super::Inflater::new();
        let (mut total, mut largest) = (0usize, 0usize);
        let mut count = |t: &[u8]| {
            total += t.len();
            largest = largest.max(t.len());
            true
        };
        // one push of the whole compressed file
        inflater.push(&packed, &mut count).unwrap();
        inflater.finish(&mut count).unwrap();
        assert_eq!(total, 16 << 20);
        assert!(largest <= super::MAX_PIECE, "{largest}");
    }

    #[test]
    fn a_gzip_bomb_is_refused_past_the_inflated_limit_naming_the_file() {
        let packed = bomb(16 << 20);
        let mut p = Parser::new("bomb.csv.gz", LoadOptions::default());
        p.limit_inflated(Some(4 << 20));
        p.feed(&packed);
        assert!(p.stopped());
        let err = p.finish().unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("bomb.csv.gz:"), "{text}");
        assert!(
            text.contains("inflates to at most 4,194,304 bytes of text (4 MiB)"),
            "{text}"
        );
        assert!(text.contains("gzip bomb"), "{text}");
        assert!(text.contains("--max-inflated"), "{text}");
        assert_eq!(err.count(), 1);
        // under the limit the same file is read through (only blank lines: empty)
        let mut p = Parser::new("bomb.csv.gz", LoadOptions::default());
        p.limit_inflated(Some(16 << 20));
        p.feed(&packed);
        assert!(p.finish().unwrap_err().to_string().contains("empty file"));
    }

    #[test]
    fn the_limit_counts_text_inflated_at_the_end_of_the_stream() {
        let packed = gz(b"label,score\n1,0.9\n0,0.1\n");
        let mut p = Parser::new("b.csv.gz", LoadOptions::default());
        p.limit_inflated(Some(10));
        p.feed(&packed);
        assert!(p.finish().is_err());
        let mut p = Parser::new("b.csv.gz", LoadOptions::default());
        p.limit_inflated(Some(24));
        p.feed(&packed);
        assert!(p.finish().is_ok());
    }

    /// A valid gzip file with a line past the line limit gets the line's
    /// error alone: its stream was left unread, not cut short.
    #[test]
    fn a_long_line_in_a_valid_gzip_file_is_the_only_problem() {
        let mut text = b"label,score\n".to_vec();
        text.extend(std::iter::repeat_n(
            b'9',
            crate::parse::MAX_LINE + (1 << 20),
        ));
        text.extend_from_slice(b"\n1,0.5\n");
        let packed = gz(&text);
        for size in [1 << 20, 8 << 10] {
            let mut p = Parser::new("long.csv.gz", LoadOptions::default());
            for c in packed.chunks(size) {
                p.feed(c);
            }
            let err = p.finish().unwrap_err();
            assert_eq!(
                err.to_string(),
                "long.csv.gz:2: expected lines shorter than 16 MiB, found a longer line (no line break). Is this a binary file, or a text file with unusual line endings?"
            );
        }
    }

    #[test]
    fn a_one_byte_file_is_handled() {
        assert!(parse_bytes("x.csv", b"a", &LoadOptions::default()).is_err());
    }
}
