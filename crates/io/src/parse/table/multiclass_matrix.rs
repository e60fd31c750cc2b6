//! Multi-class probability (or logit) matrix: `target,p_0,p_1,...`.

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::MulticlassMatrix,
    header: "target,p_0,p_1,… (multi-class)",
    scores: Scores::Reduced,
    detect,
    row: |t, n, f, o| t.matrix_row(n, f, o),
    columns: |t, _, stem, _| t.matrix_columns(stem),
};

/// A header of a target and one column per class (`p_0,p_1,p_2`): three
/// classes or more, or two that name themselves probabilities (a chosen
/// format takes two columns of any class names).
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let truth = h.truth()?;
    let others = h.rest(&[truth]);
    let classes: Option<Vec<u32>> = others.iter().map(|&c| class_suffix(&h.lower[c])).collect();
    let shaped =
        h.forced.is_some() || others.len() >= 3 || two_class_probabilities(&others, &h.lower);
    let slots = classes.filter(|_| shaped)?;
    let mut class_of_slot = std::collections::HashMap::new();
    for (slot_index, &s) in slots.iter().enumerate() {
        if class_of_slot.insert(s, slot_index).is_some() {
            return Some(Err(problem(
                0,
                others[slot_index] + 1,
                "one column per class",
                format!("class {s} twice in the header ({})", h.text()),
                None,
            )));
        }
    }
    Some(Ok(Roles {
        truth,
        models: others,
        slots,
        class_of_slot,
        ..Default::default()
    }))
}

/// A class column name like `p_3`, `prob_3`, `class_3`, `3`: its class number.
fn class_suffix(name: &str) -> Option<u32> {
    let digits = name.trim_start_matches(|c: char| !c.is_ascii_digit());
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let prefix = &name[..name.len() - digits.len()];
    let ok = prefix.is_empty()
        || [
            "p_", "p", "prob_", "prob", "proba_", "class_", "c", "c_", "logit_", "score_", "s_",
            "y_",
        ]
        .contains(&prefix);
    if ok {
        digits.parse().ok()
    } else {
        None
    }
}

/// Two score columns that name themselves probabilities of classes 0 and 1
/// (`p_0,p_1`, `proba_0,proba_1`, `prob0,prob1`: what `predict_proba` gives):
/// a 2-class probability matrix, not two binary models (`score_0,score_1`
/// or `m0,m1` stay two models).
fn two_class_probabilities(others: &[usize], lower: &[String]) -> bool {
    let probability = |name: &str, class: char| {
        [
            "p_",
            "p",
            "prob_",
            "prob",
            "proba_",
            "proba",
            "probability_",
        ]
        .iter()
        .any(|prefix| {
            name.strip_prefix(prefix)
                .is_some_and(|d| d.len() == 1 && d.starts_with(class))
        })
    };
    let mut names: Vec<&str> = others.iter().map(|&c| lower[c].as_str()).collect();
    names.sort_unstable();
    matches!(names[..], [a, b] if probability(a, '0') && probability(b, '1'))
}

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
