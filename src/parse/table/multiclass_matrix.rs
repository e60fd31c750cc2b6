//! Multi-class probability (or logit) matrix: `target,p_0,p_1,...`.

use super::*;

impl TableState {
    /// One line: the target class and a probability or logit per class, reduced to the row's summary (or, one-vs-rest, to a label and a score).
    #[inline]
    pub(super) fn matrix_row(
        &mut self,
        n: u64,
        f: &Row,
        options: &LoadOptions,
    ) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        let raw = col(self.truth);
        let target = fields::integer(raw).filter(|&t| t >= 0).map(|t| t as u32);
        let slot = target
            .and_then(|t| self.class_of_slot.get(&t).copied())
            .ok_or_else(|| {
                problem(
                    n,
                    self.truth + 1,
                    format!(
                        "a class number that has a column (0..{})",
                        self.slots.iter().max().copied().unwrap_or(0)
                    ),
                    shown(raw),
                    None,
                )
            })?;
        for (m, &c) in self.models.iter().enumerate() {
            self.row_buffer[m] = fields::number(col(c)).ok_or_else(|| {
                problem(
                    n,
                    c + 1,
                    "a probability or logit (a number)",
                    shown(col(c)),
                    decimal_comma(col(c)),
                )
            })?;
        }
        if let Some(class) = options.one_vs_rest {
            let slot_of_class = match self.ovr {
                Some((_, s)) => s,
                None => {
                    let s = self.class_of_slot.get(&class).copied().ok_or_else(|| {
                        problem(
                            n,
                            0,
                            "a column for the class asked for (one-vs-rest)",
                            format!("no column for class {class}"),
                            None,
                        )
                    })?;
                    self.ovr = Some((class, s));
                    s
                }
            };
            self.ovr_labels.push(target == Some(class));
            self.ovr_scores.push(self.row_buffer[slot_of_class]);
            return Ok(());
        }
        let summary = RowSummary::from_row(&self.row_buffer, slot);
        if (summary.row_sum - 1.0).abs() > 1e-3 {
            self.rows_off_one += 1;
        }
        self.targets.push(target.unwrap_or(0));
        let mut s = summary;
        s.argmax = self.slots[s.argmax as usize];
        s.target = target.unwrap_or(0);
        self.mc.rows.push(s);
        Ok(())
    }

    /// The rows' summaries as one model named after the file (or, one-vs-rest, the class against the rest as a binary model).
    pub(super) fn matrix_columns(mut self, stem: String) -> Option<Parsed> {
        if let Some((class, _)) = self.ovr {
            return Some(Parsed::Binary(BinaryData {
                labels: self.ovr_labels,
                models: vec![(format!("{stem} · class {class} vs rest"), self.ovr_scores)],
                ..Default::default()
            }));
        }
        if self.targets.is_empty() && !self.keep_empty {
            return None;
        }
        self.mc.name = stem;
        let num_classes = self.slots.iter().max().map_or(0, |&m| m as usize + 1);
        Some(Parsed::Multiclass(MulticlassData {
            num_classes,
            targets: self.targets,
            models: vec![self.mc],
            rows_off_one: vec![self.rows_off_one],
            class_names: None,
        }))
    }
}
