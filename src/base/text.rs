//! Bytes from C (names, paths) shown in messages as text, without a copy.

use core::fmt::{self, Write as _};

/// Bytes shown as text: valid UTF-8 as it is (padded and cut as a `str` would be), any other
/// byte sequence with U+FFFD in place of each invalid run, unpadded.
#[derive(Clone, Copy)]
pub struct Lossy<'a>(pub &'a [u8]);

impl fmt::Display for Lossy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Ok(text) = core::str::from_utf8(self.0) {
            return f.pad(text);
        }
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_char(char::REPLACEMENT_CHARACTER)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Lossy;
    use alloc::format;

    #[test]
    fn valid_text_is_shown_as_a_str_would_be() {
        assert_eq!(format!("[{:>6.4}]", Lossy("blk.0é".as_bytes())), "[  blk.]");
        assert_eq!(format!("[{}]", Lossy(b"")), "[]");
    }

    #[test]
    fn invalid_bytes_are_replaced_as_from_utf8_lossy_replaces_them() {
        for bytes in [&b"a\xffb"[..], b"\xff\xfe", b"x\xe2\x82", b"\xc3"] {
            assert_eq!(format!("{}", Lossy(bytes)), alloc::string::String::from_utf8_lossy(bytes));
        }
        assert_eq!(format!("{}", Lossy(b"a\xffb")), "a\u{FFFD}b");
    }
}
