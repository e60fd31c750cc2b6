//! Top-k lists per user, as recommenders write them: `user_id,rec_1,...,rec_k`
//! (also `item_1`, `pred_1`, `top_1`, ...) or `user_id,items` with the
//! whole list in one cell (separated by spaces, `|`, `;`, or commas inside
//! quotes; a Python list as pandas writes it). Each line is one user's
//! ranked list, the column (or cell) order its ranks: read as a run whose
//! score is −position. A target column (`user_id,target,pred_1,...`) holds
//! the user's relevant item (or items): its judgments.

use super::multiclass_topk::list_position;
use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::TopKLists,
    header: "user_id,rec_1,… or user_id,items (top-k lists)",
    scores: Scores::Lists,
    detect,
    row: |t, n, f, _| t.list_row(n, f),
    columns: |t, _, stem, errors| t.list_columns(stem, errors),
};

/// A header of a user (or query), no item column, and either ranked
/// columns (`rec_1,rec_2,...`, in their positions' order) or one column
/// holding the list; an optional target column beside them.
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let u = h.user().or(h.query())?;
    if h.item().is_some() {
        return None;
    }
    let truth = h.truth();
    let used: Vec<usize> = std::iter::once(u).chain(truth).collect();
    let others = h.rest(&used);
    let roles = |models: Vec<usize>, slots: Vec<u32>| Roles {
        key_a: u,
        truth: truth.unwrap_or(usize::MAX),
        models,
        slots,
        ..Default::default()
    };
    if let [c] = others[..] {
        if is_one_of(&h.lower[c], LIST_CELL) {
            return Some(Ok(roles(vec![c], Vec::new())));
        }
    }
    let positions: Option<Vec<u32>> = others.iter().map(|&c| list_position(&h.lower[c])).collect();
    let mut cols: Vec<(u32, usize)> = positions?.into_iter().zip(others).collect();
    if cols.is_empty() {
        return None;
    }
    cols.sort();
    if let Some(w) = cols.windows(2).find(|w| w[0].0 == w[1].0) {
        return Some(Err(problem(
            0,
            w[1].1 + 1,
            "one column per list position",
            format!("position {} twice in the header ({})", w[0].0, h.text()),
            None,
        )));
    }
    Some(Ok(roles(
        cols.iter().map(|c| c.1).collect(),
        (1..=cols.len() as u32).collect(),
    )))
}

/// The items of a list written in one cell: `a b c`, `a|b|c`, `a;b;c`,
/// `a,b,c` (quoted in the file), or `['a', 'b']` (a Python list as pandas
/// writes it); empty pieces skipped.
fn cell_items(cell: &str) -> impl Iterator<Item = &str> {
    let mut s = cell.trim();
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        s = inner;
    }
    let sep = ['|', ';', ','].into_iter().find(|&c| s.contains(c));
    let pieces: Box<dyn Iterator<Item = &str>> = match sep {
        Some(c) => Box::new(s.split(c)),
        None => Box::new(s.split_ascii_whitespace()),
    };
    pieces
        .map(|p| p.trim().trim_matches(|c| c == '\'' || c == '"').trim())
        .filter(|p| !p.is_empty())
}

impl TableState {
    /// One line: a user, the ranked items, and the target items if any.
    #[inline]
    pub(super) fn list_row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let user_text = fields::id(&f[self.key_a]).ok_or_else(|| {
            problem(
                n,
                self.key_a + 1,
                format!("a user id in column '{}'", self.header[self.key_a]),
                shown(&f[self.key_a]),
                None,
            )
        })?;
        let before = self.ids_a.len();
        let user = self.ids_a.intern(user_text);
        if (user as usize) < before {
            return Err(problem(
                n,
                self.key_a + 1,
                "each user's list on one line",
                format!(
                    "user '{}' again (first on line {})",
                    super::super::error::capped(user_text.to_string()),
                    self.list_line[user as usize]
                ),
                None,
            ));
        }
        self.list_line.push(n);
        let start = self.a.len();
        let add = |t: &mut TableState, item: &str, position: usize, column: usize| {
            let again = (start..t.a.len()).find(|&r| t.names_b.get(r) == item);
            if let Some(r) = again {
                return Err(problem(
                    n,
                    column + 1,
                    "each item once in a user's list",
                    format!(
                        "'{}' at positions {} and {position}",
                        super::super::error::capped(item.to_string()),
                        -t.list_score[r]
                    ),
                    None,
                ));
            }
            t.a.push(user);
            t.names_b.push(item);
            t.list_score.push(-(position as f64));
            t.grades.push(None);
            Ok(())
        };
        if self.slots.is_empty() {
            let c = self.models[0];
            let cell = std::str::from_utf8(&f[c])
                .map_err(|_| problem(n, c + 1, "a list of item ids", shown(&f[c]), None))?;
            for (i, item) in cell_items(cell).enumerate() {
                add(self, item, i + 1, c)?;
            }
        } else {
            for i in 0..self.models.len() {
                let c = self.models[i];
                if f[c].is_empty() {
                    continue;
                }
                let item = fields::id(&f[c])
                    .ok_or_else(|| problem(n, c + 1, "an item id", shown(&f[c]), None))?;
                add(self, item, self.slots[i] as usize, c)?;
            }
        }
        if self.truth != usize::MAX {
            let c = self.truth;
            let cell = std::str::from_utf8(&f[c])
                .map_err(|_| problem(n, c + 1, "the relevant item's id", shown(&f[c]), None))?;
            let listed = self.a.len();
            for target in cell_items(cell) {
                match (start..self.a.len()).find(|&r| self.names_b.get(r) == target) {
                    Some(r) if r < listed => self.grades[r] = Some(1),
                    Some(_) => {}
                    None => {
                        self.a.push(user);
                        self.names_b.push(target);
                        self.list_score.push(f64::NAN);
                        self.grades.push(Some(1));
                    }
                }
            }
        }
        Ok(())
    }

    /// The lists as one run named after the file; with targets, a ranking
    /// table (the targets its judgments).
    pub(super) fn list_columns(self, stem: String, _errors: &mut LoadError) -> Option<Parsed> {
        if self.list_line.is_empty() {
            return None;
        }
        let order = if self.slots.is_empty() {
            format!(
                "the order of the items in '{}'",
                self.header[self.models[0]]
            )
        } else {
            format!("the column order ('{}' first)", self.header[self.models[0]])
        };
        let mut notes = vec![format!(
            "Read as top-k lists: {} users, each line one user's ranked list, ranked by {order} (each item's score is −its position).",
            self.list_line.len()
        )];
        if self.truth == usize::MAX {
            let parsed = Parsed::Run {
                name: stem,
                tag: String::new(),
                queries: self.ids_a,
                q: self.a,
                docs: self.names_b,
                score: self.list_score,
            };
            return Some(parsed.noted(notes));
        }
        notes.push(format!(
            "'{}' holds each user's relevant items: the judgments (grade 1).",
            self.header[self.truth]
        ));
        let scores = self
            .list_score
            .iter()
            .map(|&s| (!s.is_nan()).then_some(s))
            .collect();
        Some(
            Parsed::RankingTable {
                queries: self.ids_a,
                q: self.a,
                docs: self.names_b,
                grade: self.grades,
                models: vec![(stem, scores)],
            }
            .noted(notes),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, LoadOptions, Parsed};

    /// Each (user, item, score, grade) row of a lists file, and its notes.
    type Rows = Vec<(String, String, Option<f64>, Option<i32>)>;

    fn read(text: &str) -> (Rows, Vec<String>) {
        let (parsed, notes) = parse_bytes("recs.csv", text.as_bytes(), &LoadOptions::default())
            .unwrap()
            .into_parts();
        let rows = match parsed {
            Parsed::Run {
                name,
                queries,
                q,
                docs,
                score,
                ..
            } => {
                assert_eq!(name, "recs");
                (0..q.len())
                    .map(|i| {
                        let user = queries.name(q[i]).to_string();
                        (user, docs.get(i).to_string(), Some(score[i]), None)
                    })
                    .collect()
            }
            Parsed::RankingTable {
                queries,
                q,
                docs,
                grade,
                models,
            } => {
                assert_eq!(models.len(), 1);
                assert_eq!(models[0].0, "recs");
                (0..q.len())
                    .map(|i| {
                        let user = queries.name(q[i]).to_string();
                        (user, docs.get(i).to_string(), models[0].1[i], grade[i])
                    })
                    .collect()
            }
            other => panic!("a run, not {other:?}"),
        };
        (rows, notes)
    }

    fn run(rows: &[(&str, &str, f64)]) -> Rows {
        rows.iter()
            .map(|&(u, i, s)| (u.into(), i.into(), Some(s), None))
            .collect()
    }

    /// Wide columns (in their positions' order, whatever the header's) and
    /// a list in one cell, separated by spaces, bars, semicolons, quoted
    /// commas or written as a Python list: the same run, score −position.
    #[test]
    fn lists_in_columns_or_in_one_cell_are_one_run() {
        let expected = run(&[
            ("u1", "sku-0003", -1.0),
            ("u1", "sku-0001", -2.0),
            ("u1", "sku-0002", -3.0),
            ("u2", "sku-0002", -1.0),
        ]);
        for text in [
            "user_id,rec_1,rec_2,rec_3\nu1,sku-0003,sku-0001,sku-0002\nu2,sku-0002,,\n",
            "user_id,item_3,item_1,item_2\nu1,sku-0002,sku-0003,sku-0001\nu2,,sku-0002,\n",
            "user_id,items\nu1,sku-0003 sku-0001 sku-0002\nu2,sku-0002\n",
            "user_id,items\nu1,sku-0003|sku-0001|sku-0002\nu2,sku-0002\n",
            "user_id\trecommendations\nu1\tsku-0003;sku-0001;sku-0002\nu2\tsku-0002\n",
            "user_id,items\nu1,\"sku-0003,sku-0001,sku-0002\"\nu2,sku-0002\n",
            "user_id,items\nu1,\"['sku-0003', 'sku-0001', 'sku-0002']\"\nu2,['sku-0002']\n",
        ] {
            let (rows, notes) = read(text);
            assert_eq!(rows, expected, "{text}");
            assert!(
                notes[0].starts_with("Read as top-k lists: 2 users"),
                "{notes:?}"
            );
        }
    }

    /// `user_id,target,pred_1,...`: the lists, and each target a judgment
    /// of grade 1 (a row of its own when the list misses it).
    #[test]
    fn a_target_beside_the_lists_is_their_judgment() {
        let (rows, notes) = read("user_id,target,pred_1,pred_2\nu1,b,a,b\nu2,z,c,d\n");
        let row = |u: &str, i: &str, s: Option<f64>, g: Option<i32>| (u.into(), i.into(), s, g);
        assert_eq!(
            rows,
            [
                row("u1", "a", Some(-1.0), None),
                row("u1", "b", Some(-2.0), Some(1)),
                row("u2", "c", Some(-1.0), None),
                row("u2", "d", Some(-2.0), None),
                row("u2", "z", None, Some(1)),
            ]
        );
        assert!(notes[1].starts_with("'target' holds each user's relevant items"));
    }

    /// A user on two lines, an item twice in one list, two columns of one
    /// position: refused where they stand.
    #[test]
    fn repeats_are_refused_with_their_place() {
        let e = |text: &str| {
            parse_bytes("recs.csv", text.as_bytes(), &LoadOptions::default())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e("user_id,rec_1\nu1,a\nu2,b\nu1,c\n"),
            "recs.csv:4:1: expected each user's list on one line, found user 'u1' again (first on line 2)"
        );
        assert_eq!(
            e("user_id,items\nu1,a b a\n"),
            "recs.csv:2:2: expected each item once in a user's list, found 'a' at positions 1 and 3"
        );
        assert_eq!(
            e("user_id,rec_1,rec_01\nu1,a,b\n"),
            "recs.csv:1:3: expected one column per list position, found position 1 twice in the header (user_id,rec_1,rec_01)"
        );
    }
}
