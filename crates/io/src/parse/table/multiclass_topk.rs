//! Multi-class (next-item) top-k lists: `target,pred_1,...,pred_k`.

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::MulticlassTopK,
    header: "target,pred_1,… (top-k)",
    scores: Scores::Reduced,
    detect,
    row: |t, n, f, _| t.topk_row(n, f),
    columns: |t, _, stem, _| t.topk_columns(stem),
};

/// A header of a target and ranked columns (`pred_1,pred_2,...`), in
/// their positions' order.
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let truth = h.truth()?;
    let others = h.rest(&[truth]);
    let positions: Option<Vec<u32>> = others.iter().map(|&c| list_position(&h.lower[c])).collect();
    let mut cols: Vec<(u32, usize)> = positions?.into_iter().zip(others).collect();
    if cols.is_empty() {
        return None;
    }
    cols.sort();
    Some(Ok(Roles {
        truth,
        models: cols.iter().map(|c| c.1).collect(),
        slots: cols.iter().map(|c| c.0).collect(),
        ..Default::default()
    }))
}

/// A top-k column name like `pred_1`, `top_1`, `rank_1`, `pred1`, `rec_1`,
/// `item_1`: its position.
pub(super) fn list_position(name: &str) -> Option<u32> {
    for prefix in [
        "pred_",
        "pred",
        "top_",
        "top",
        "rank_",
        "rank",
        "prediction_",
        "rec_",
        "rec",
        "item_",
        "recommendation_",
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
                return rest.parse().ok();
            }
        }
    }
    None
}

impl TableState {
    /// One line: the target and the ranked classes (or items).
    #[inline]
    pub(super) fn topk_row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        let target = class_id(n, self.truth, col(self.truth), "a target class")?;
        let t = self.ids_a.intern(target);
        let mut position = 0u32;
        let mut first = u32::MAX;
        for (i, &c) in self.models.iter().enumerate() {
            let v = col(c);
            if v.is_empty() {
                continue;
            }
            let class = class_id(n, c, v, "a class or item id")?;
            let id = self.ids_a.intern(class);
            if i == 0 {
                first = id;
            }
            if id == t && position == 0 {
                position = i as u32 + 1;
            }
        }
        self.targets.push(t);
        self.mc.list_positions.push(position);
        self.mc.list_first.push(first);
        Ok(())
    }

    /// The lists as one model named after the file; class ids that are all numbers keep their numbers, others are named classes.
    pub(super) fn topk_columns(mut self, stem: String) -> Option<Parsed> {
        if self.targets.is_empty() {
            return None;
        }
        self.mc.name = stem;
        self.mc.list_len = self.models.len();
        // class ids are interned strings here: when every one is a
        // number they map to their numbers (gaps allowed), else each
        // is a class of its own, numbered as first seen, its name kept
        let Some(numeric) = (0..self.ids_a.len() as u32)
            .map(|i| class_number(self.ids_a.name(i)))
            .collect::<Option<Vec<u32>>>()
        else {
            let names = self.ids_a;
            // more ids than rows: items recommended per row, more likely
            // than classes (each class a target of many rows)
            let notes = if names.len() > self.targets.len() {
                vec![format!("{} distinct ids in {} rows: read as multi-class top-k lists, each id a class (accuracy@k, F1 over classes). If they are items recommended per user, add a user_id column: such a file is read as a ranking of items per user (recall@k, nDCG@k, the target its judgment).", names.len(), self.targets.len())]
            } else {
                Vec::new()
            };
            return Some(
                Parsed::Classes {
                    parsed: Box::new(Parsed::Multiclass(MulticlassData {
                        num_classes: names.len(),
                        targets: self.targets,
                        models: vec![self.mc],
                        rows_off_one: vec![0],
                        class_names: None,
                    })),
                    names,
                }
                .noted(notes),
            );
        };
        let map = |c: u32| {
            if c == u32::MAX {
                u32::MAX
            } else {
                numeric[c as usize]
            }
        };
        let targets = self.targets.iter().map(|&t| map(t)).collect();
        self.mc.list_first = self.mc.list_first.iter().map(|&c| map(c)).collect();
        // classes are numbered up to the largest id (metrics count the
        // classes present, so a gap adds none)
        let num_classes = numeric.iter().max().map_or(0, |&m| m as usize + 1);
        Some(Parsed::Multiclass(MulticlassData {
            num_classes,
            targets,
            models: vec![self.mc],
            rows_off_one: vec![0],
            class_names: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, LoadOptions, Parsed};

    /// Without a user column, text ids stay classes; more of them than rows
    /// (items, not classes) are said, with the column that makes a ranking.
    #[test]
    fn many_text_ids_without_a_user_are_named() {
        let read = |text: &str| {
            parse_bytes("topk.csv", text.as_bytes(), &LoadOptions::default())
                .unwrap()
                .into_parts()
        };
        let (parsed, notes) = read("target,pred_1,pred_2\nsku-1,sku-2,sku-1\nsku-3,sku-4,sku-5\n");
        assert!(matches!(parsed, Parsed::Classes { .. }));
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("5 distinct ids in 2 rows")
                && notes[0].contains("add a user_id column")
        );
        let (_, notes) = read("target,pred_1,pred_2\ncat,dog,cat\ndog,dog,cat\ncat,cat,dog\n");
        assert!(notes.is_empty());
        let (parsed, notes) = read("target,pred_1,pred_2\n1,2,1\n3,4,5\n");
        assert!(matches!(parsed, Parsed::Multiclass(_)) && notes.is_empty());
    }
}
