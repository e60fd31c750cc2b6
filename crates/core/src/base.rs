//! What the kernels share, below all of them: the kinds of data, the sort
//! key of a score, average ranks and the normal quantile of 95% intervals.

/// The four kinds of data Rankscope evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Ranking,
    Binary,
    Multiclass,
    Ratings,
}

crate::named!(Kind {
    Ranking = "ranking",
    Binary = "binary",
    Multiclass = "multiclass",
    Ratings = "ratings",
});

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Ranking => "ranking",
            Kind::Binary => "binary classification",
            Kind::Multiclass => "multi-class next-item",
            Kind::Ratings => "rating prediction",
        }
    }

    /// What one evaluation unit is called.
    pub fn unit(self) -> &'static str {
        match self {
            Kind::Ranking => "query",
            Kind::Binary | Kind::Multiclass => "row",
            Kind::Ratings => "user",
        }
    }
}

/// Maps an f64 to a u64 with the same total order (for fast integer sorting).
#[inline]
pub(crate) fn order_key(x: f64) -> u64 {
    // -0.0 and 0.0 are the same threshold
    let b = if x == 0.0 { 0u64 } else { x.to_bits() };
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Average (fractional) ranks, 1-based, as scipy `rankdata(method='average')`.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let order = super::order(n, &|a, b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; n];
    let mut s = 0;
    while s < n {
        let mut e = s + 1;
        while e < n && values[order[e]] == values[order[s]] {
            e += 1;
        }
        let avg = (s + e + 1) as f64 / 2.0; // mean of ranks s+1..=e
        for &i in &order[s..e] {
            ranks[i] = avg;
        }
        s = e;
    }
    ranks
}

/// The standard normal's 97.5th percentile (two-sided 95% intervals).
pub const Z95: f64 = 1.959963984540054;
