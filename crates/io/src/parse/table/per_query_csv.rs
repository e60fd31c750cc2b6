//! Per-query values computed elsewhere: `query_id,model,metric,value` (what
//! `rankscope eval --per-query --format csv`, the Python package and its
//! Spark job write); the model column is optional.

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::PerQueryCsv,
    header: "query_id,model,metric,value (per-query values)",
    scores: Scores::Reduced,
    detect,
    row: |t, n, f, _| t.per_query_row(n, f),
    columns: |t, _, stem, errors| t.per_query_columns(&stem, errors),
};

/// A header of a query, a metric and a value (and a model, or the file is one model named after it).
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let (q, m, v) = (
        h.query().or(h.user())?,
        h.find(&["metric", "measure"])?,
        h.find(&["value"])?,
    );
    Some(Ok(Roles {
        key_a: q,
        truth: m,
        key_b: h
            .find(&["model", "run", "system", "run_id", "tag"])
            .unwrap_or(usize::MAX),
        models: vec![v],
        ..Default::default()
    }))
}

impl TableState {
    /// One line: a query, a model, a metric and its value (empty: undefined).
    #[inline]
    pub(super) fn per_query_row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        // an id a spreadsheet would run was written with a `'` before it
        // (`report::per_query_csv`): read as it was
        let id = |c: usize, what: &str| {
            fields::id(col(c))
                .map(rankscope_core::text::csv_uncell)
                .ok_or_else(|| {
                    problem(
                        n,
                        c + 1,
                        format!("{what} in column '{}'", self.header[c]),
                        shown(col(c)),
                        None,
                    )
                })
        };
        let q = id(self.key_a, "an id")?;
        let model = match self.key_b {
            usize::MAX => "",
            c => id(c, "a model name")?,
        };
        let metric = id(self.truth, "a metric id")?;
        let c = self.models[0];
        let v = col(c);
        if v.is_empty() {
            return Ok(()); // undefined for this query (FCP of one grade)
        }
        let v = fields::number(v).filter(|v| !v.is_nan()).ok_or_else(|| {
            problem(
                n,
                c + 1,
                "a value (a number, or nothing for an undefined one)",
                shown(v),
                decimal_comma(v),
            )
        })?;
        self.a.push(self.ids_a.intern(q));
        self.b.push(self.ids_b.intern(model));
        self.metric.push(self.measures.intern(metric));
        self.truth_values.push(v);
        Ok(())
    }

    /// The per-query values of each model.
    pub(super) fn per_query_columns(self, stem: &str, errors: &mut LoadError) -> Option<Parsed> {
        if self.a.is_empty() {
            return None;
        }
        let values = crate::parse::PerQueryColumns {
            queries: &self.ids_a,
            q: &self.a,
            models: &self.ids_b,
            model: &self.b,
            measures: &self.measures,
            m: &self.metric,
            value: &self.truth_values,
        };
        let models = match values.split(stem) {
            Ok(models) => models,
            Err((first, again)) => {
                errors.push(problem(
                    again as u64 + 2,
                    self.key_a + 1,
                    "one value per query, model and metric",
                    format!(
                        "query '{}' and metric '{}' again (first on line {})",
                        self.ids_a.name(self.a[again]),
                        self.measures.name(self.metric[again]),
                        first + 2
                    ),
                    None,
                ));
                return None;
            }
        };
        Some(Parsed::PerQuery(models))
    }
}
