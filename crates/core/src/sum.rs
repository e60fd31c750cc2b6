//! Compensated summation.
//!
//! Means over millions of per-query or per-row terms are accumulated with
//! Neumaier's variant of Kahan summation, so that a 10M-term sum keeps its
//! last digits (a plain `f64` running sum can lose ~7 of them).

/// A running Neumaier-compensated sum.
///
/// # Examples
///
/// ```
/// use rankscope_core::sum::Sum;
///
/// let mut s = Sum::new();
/// for x in [1e16, 1.0, -1e16] {
///     s.add(x);
/// }
/// assert_eq!(s.value(), 1.0); // Python's math.fsum; a plain f64 sum gives 0
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum {
    total: f64,
    compensation: f64,
}

impl Sum {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn add(&mut self, x: f64) {
        let t = self.total + x;
        if self.total.abs() >= x.abs() {
            self.compensation += (self.total - t) + x;
        } else {
            self.compensation += (x - t) + self.total;
        }
        self.total = t;
    }

    pub fn value(&self) -> f64 {
        self.total + self.compensation
    }
}

/// Compensated sum of an iterator of values.
///
/// # Examples
///
/// ```
/// use rankscope_core::sum::sum;
///
/// // Python's math.fsum([0.1] * 10); adding left to right gives 0.9999999999999999
/// assert_eq!(sum([0.1; 10]), 1.0);
/// ```
pub fn sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut s = Sum::new();
    for v in values {
        s.add(v);
    }
    s.value()
}

/// Compensated mean; `None` for an empty input.
///
/// # Examples
///
/// ```
/// use rankscope_core::sum::mean;
///
/// assert_eq!(mean([1.0, 2.0, 4.0]), Some(7.0 / 3.0));
/// assert_eq!(mean([]), None);
/// ```
pub fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut s = Sum::new();
    let mut n = 0usize;
    for v in values {
        s.add(v);
        n += 1;
    }
    (n > 0).then(|| s.value() / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensated_sum_keeps_small_terms_next_to_a_large_one() {
        // 1e16 + 1 + 1 + ... : a naive sum drops every 1.
        let mut values = vec![1e16];
        values.extend(std::iter::repeat_n(1.0, 1000));
        values.push(-1e16);
        assert_eq!(sum(values.iter().copied()), 1000.0);
        let naive: f64 = values.iter().sum();
        assert_ne!(naive, 1000.0);
    }

    #[test]
    fn mean_of_nothing_is_none() {
        assert_eq!(mean(std::iter::empty()), None);
        assert_eq!(mean([1.0, 2.0]), Some(1.5));
    }
}
