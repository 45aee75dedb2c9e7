//! Why a split state cannot be accepted or inferred: a fixed reason and the numbers it names,
//! kept as they are (no text made on the heap) until the caller's refusal prints them.

use core::fmt;

/// A reason, and up to three numbers (split axes, a device, shares, counts) that it names in
/// parentheses, printed after it in the same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitError {
    why: &'static str,
    values: [i64; 3],
    n_values: usize,
}

impl SplitError {
    /// A reason and the numbers it names (at most three: more are not printed).
    pub fn with(why: &'static str, values: &[i64]) -> SplitError {
        let mut kept = [0; 3];
        for (slot, &value) in kept.iter_mut().zip(values) {
            *slot = value;
        }
        SplitError { why, values: kept, n_values: values.len().min(3) }
    }
}

impl From<&'static str> for SplitError {
    fn from(why: &'static str) -> SplitError {
        SplitError::with(why, &[])
    }
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.why)?;
        for (i, value) in self.values.iter().take(self.n_values).enumerate() {
            write!(f, "{}{value}", if i == 0 { ": " } else { ", " })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn a_reason_prints_the_numbers_it_names_after_it() {
        assert_eq!(SplitError::from("a view without a source").to_string(), "a view without a source");
        let error = SplitError::with("unsupported mul_mat split states (src0 axis, src1 axis)", &[1, 0]);
        assert_eq!(error.to_string(), "unsupported mul_mat split states (src0 axis, src1 axis): 1, 0");
    }
}
