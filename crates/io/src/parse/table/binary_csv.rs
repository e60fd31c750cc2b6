//! Binary classification CSV: `label,score...` (one score column per model).

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::BinaryCsv,
    header: "label,score (binary)",
    scores: Scores::Dense,
    detect,
    row: |t, n, f, o| t.binary_row(n, f, o),
    columns: |t, names, _, _| t.binary_columns(names),
};

/// A header of a label and one score column per model.
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let truth = h.truth()?;
    let models = h.rest(&[truth]);
    (!models.is_empty()).then_some(Ok(Roles {
        truth,
        models,
        ..Default::default()
    }))
}

impl TableState {
    /// One line: a label and each model's score.
    #[inline]
    pub(super) fn binary_row(
        &mut self,
        n: u64,
        f: &Row,
        options: &LoadOptions,
    ) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        let raw = col(self.truth);
        let label = binary_label(raw, options.positive_label.as_deref()).ok_or_else(|| {
            problem(
                n,
                self.truth + 1,
                "a binary label: 1/0, true/false, yes/no or pos/neg",
                shown(raw),
                Some(
                    "If the positive class has another name, choose it as the positive label."
                        .into(),
                ),
            )
        })?;
        for (m, &c) in self.models.iter().enumerate() {
            self.row_buffer[m] = fields::number(col(c)).ok_or_else(|| {
                problem(
                    n,
                    c + 1,
                    format!("a score for model '{}' (a number)", self.header[c]),
                    shown(col(c)),
                    decimal_comma(col(c)),
                )
            })?;
        }
        self.labels.push(label);
        for (m, &v) in self.row_buffer.iter().enumerate() {
            self.dense_values[m].push(v);
        }
        Ok(())
    }

    /// The labels and each model's scores.
    pub(super) fn binary_columns(self, names: Vec<String>) -> Option<Parsed> {
        if self.labels.is_empty() && !self.keep_empty {
            return None;
        }
        let models = names.into_iter().zip(self.dense_values).collect();
        Some(Parsed::Binary(BinaryData {
            labels: self.labels,
            models,
            ..Default::default()
        }))
    }
}
