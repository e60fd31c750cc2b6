//! The loaded data sets, one per kind, and how a parsed file joins them.
//!
//! A file either merges completely or not at all: every check runs before
//! anything is changed, so a bad file never loses what was already loaded.

use super::{LoadError, Parsed};
use rankscope_core::evaluate::{BinaryData, Dataset, MulticlassData, RatingsData};
use rankscope_core::ids::{Interner, Names};
use rankscope_core::ranking::{Qrels, RankingData, Run};
use rankscope_core::registry::Kind;

/// Everything loaded so far.
#[derive(Clone, Debug)]
pub struct Workspace {
    pub ranking: Option<RankingData>,
    /// Whether the ranking data has judgments (qrels or a long CSV).
    pub has_qrels: bool,
    pub binary: Option<BinaryData>,
    pub multiclass: Option<MulticlassData>,
    pub ratings: Option<RatingsData>,
    /// trec_eval output files, shown as they are.
    pub precomputed: Vec<super::Precomputed>,
    /// Preference, judgment-group and z-score files, evaluated by
    /// `rankscope trec_eval` against the runs (`crate::trec_relations`).
    pub relations: Vec<super::Relations>,
    /// Their evaluations (trec_eval's output per relation file and run),
    /// shown beside `precomputed`; derived, so never saved.
    pub derived: Vec<super::Precomputed>,
    /// Names of the files loaded, in order.
    pub files: Vec<String>,
    /// The file each model came from, as (file, kind, model), kept through
    /// renames and removals (not saved in sessions).
    pub origins: Vec<(String, Kind, String)>,
    /// The most values held at once (see [`super::WORKSPACE_VALUES`]): set in
    /// wasm, `None` (no limit) natively.
    pub max_values: Option<u64>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            ranking: None,
            has_qrels: false,
            binary: None,
            multiclass: None,
            ratings: None,
            precomputed: Vec::new(),
            relations: Vec::new(),
            derived: Vec::new(),
            files: Vec::new(),
            origins: Vec::new(),
            max_values: cfg!(target_arch = "wasm32").then_some(super::WORKSPACE_VALUES),
        }
    }
}

/// What the page says after a file loads: what was understood.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadSummary {
    pub file: String,
    pub format: String,
    pub kind: Option<Kind>,
    pub models_added: Vec<String>,
    pub rows: usize,
    pub details: Vec<String>,
    pub warnings: Vec<String>,
}

fn remap(local: &Interner, global: &mut Interner) -> Vec<u32> {
    (0..local.len() as u32)
        .map(|i| global.intern(local.name(i)))
        .collect()
}

/// `d`'s classes numbered in `table` by their ids' text (a number's is its
/// digits), interned as met; for top-k lists (a matrix's classes are its
/// columns' order).
fn renumber_classes(d: &mut MulticlassData, table: &mut Interner) {
    let names = d.class_names.take();
    let mut number = |c: u32| match &names {
        Some(n) => table.intern(n.name(c)),
        None => table.intern(&c.to_string()),
    };
    d.targets.iter_mut().for_each(|t| *t = number(*t));
    for p in &mut d.models {
        for c in p.list_first.iter_mut().filter(|c| **c != u32::MAX) {
            *c = number(*c);
        }
    }
}

/// `wanted`, numbered when taken.
fn unique_name(existing: &[String], wanted: &str) -> String {
    if !existing.iter().any(|n| n == wanted) {
        return wanted.to_string();
    }
    (2..)
        .map(|i| format!("{wanted} ({i})"))
        .find(|n| !existing.contains(n))
        .unwrap_or_default()
}

/// A run loaded with no judgments loaded.
/// The warning of a run merged with no judgments loaded (a drop that
/// brings its judgments after it drops it: `app::loader::Notes`).
pub const NO_QRELS: &str = "No relevance judgments yet: load the run's qrels (CLI: --qrels FILE).";

impl Workspace {
    /// The data sets present, in a stable order. Ranking needs judgments.
    pub fn datasets(&self) -> Vec<Dataset<'_>> {
        let mut out = Vec::new();
        if let (Some(r), true) = (&self.ranking, self.has_qrels) {
            if !r.runs.is_empty() {
                out.push(Dataset::Ranking(r));
            }
        }
        if let Some(b) = &self.binary {
            out.push(Dataset::Binary(b));
        }
        if let Some(m) = &self.multiclass {
            out.push(Dataset::Multiclass(m));
        }
        if let Some(r) = &self.ratings {
            out.push(Dataset::Ratings(r));
        }
        out
    }

    /// The data set of `kind`, if loaded (and, for ranking, judged and with a run).
    pub fn dataset(&self, kind: Kind) -> Option<Dataset<'_>> {
        self.datasets().into_iter().find(|d| d.kind() == kind)
    }

    pub fn is_empty(&self) -> bool {
        self.ranking.is_none()
            && self.binary.is_none()
            && self.multiclass.is_none()
            && self.ratings.is_none()
            && self.precomputed.is_empty()
            && self.relations.is_empty()
    }

    /// What the relation files' evaluations depend on (the relation files,
    /// the runs and the judgments), as one number: 0 without relation files.
    pub fn relations_key(&self) -> u64 {
        if self.relations.is_empty() {
            return 0;
        }
        // FNV-1a over the names and sizes
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut add = |bytes: &[u8], n: usize| {
            for &b in bytes.iter().chain(&n.to_le_bytes()) {
                h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
            }
        };
        for r in &self.relations {
            add(r.name.as_bytes(), r.rows);
        }
        if let Some(d) = &self.ranking {
            add(b"", d.qrels.grades.len());
            for run in &d.runs {
                add(run.name.as_bytes(), run.rows.len());
            }
        }
        h | 1
    }

    /// The trec_eval outputs to show: the files of values computed elsewhere,
    /// then the evaluations of the relation files.
    pub fn measure_files(&self) -> impl Iterator<Item = &super::Precomputed> + Clone {
        self.precomputed.iter().chain(&self.derived)
    }

    /// Values held, the measure of [`Workspace::max_values`]: one per score of
    /// a row, judgment or trec_eval line, [`super::QUERY_VALUES`] per query of each run.
    pub fn values(&self) -> u64 {
        use super::wide;
        let ranking = self.ranking.as_ref().map_or(0, |r| {
            let run = |run: &Run| {
                let queries = run.offsets.windows(2).filter(|w| w[1] > w[0]).count() as u64;
                run.rows.len() as u64 + super::QUERY_VALUES * queries
            };
            r.qrels.grades.len() as u64 + r.runs.iter().map(run).sum::<u64>()
        });
        ranking
            + self
                .binary
                .as_ref()
                .map_or(0, |b| wide(b.labels.len(), b.models.len()))
            + self
                .multiclass
                .as_ref()
                .map_or(0, |m| wide(m.targets.len(), m.models.len()))
            + self
                .ratings
                .as_ref()
                .map_or(0, |r| wide(r.rating.len(), r.models.len()))
            + self
                .precomputed
                .iter()
                .map(|p| p.value.len() as u64)
                .sum::<u64>()
            + self.relations.iter().map(|r| r.rows as u64).sum::<u64>()
    }

    /// The values computed elsewhere (trec_eval `-q` output, per-query values
    /// files) as a report, one model per file or model: each measure's
    /// per-query values (queries in byte-wise order of their ids, as the
    /// core orders them; the last value of a query as written) and its
    /// value: the file's `all` line when it has one (trec_eval's), else the
    /// per-query values aggregated as the core aggregates them
    /// ([`rankscope_core::evaluate::aggregate`]); none for a measure some
    /// query lacks, or FCP and Spearman (ratios over pairs, not means).
    /// Measures some query lacks have no per-query column (nothing to pair).
    /// `metrics`: only these measures, as written in the files (every one
    /// when `None` or `all`); a measure no file holds is an error naming
    /// the ones they do.
    pub fn precomputed_report(
        &self,
        metrics: Option<&[String]>,
    ) -> Result<rankscope_core::evaluate::Report, String> {
        let mut report = self.values_report();
        let Some(ids) = metrics.filter(|ids| !(ids.len() == 1 && ids[0] == "all")) else {
            return Ok(report);
        };
        if let Some(missing) = ids.iter().find(|id| !report.columns.contains(id)) {
            return Err(format!(
                "{missing}: no such measure in these files (they hold: {})",
                report.columns.join(", ")
            ));
        }
        report.columns = ids.to_vec();
        for m in &mut report.models {
            m.metrics.retain(|k, _| ids.contains(k));
            m.per_unit.retain(|k, _| ids.contains(k));
        }
        Ok(report)
    }

    /// [`Workspace::precomputed_report`] of every measure, the relation
    /// files' evaluations ([`Workspace::derived`]) included
    /// ([`values_report`]).
    pub fn values_report(&self) -> rankscope_core::evaluate::Report {
        values_report(self.measure_files())
    }

    /// Values computed elsewhere (trec_eval output, a per-query values file),
    /// shown as they are.
    fn add_precomputed(&mut self, list: Vec<super::Precomputed>, summary: &mut LoadSummary) {
        for mut p in list {
            let names: Vec<String> = self.precomputed.iter().map(|p| p.name.clone()).collect();
            p.name = unique_name(&names, &p.name);
            summary.rows += p.value.len();
            let queries = p.queries.len() - p.queries.get("all").is_some() as usize;
            summary.details.push(format!(
                "{} measures, {} queries, shown as computed elsewhere (not recomputed)",
                p.measures.len(),
                queries
            ));
            summary.models_added.push(p.name.clone());
            self.precomputed.push(p);
        }
    }

    /// A run: its queries joined to the loaded ones, named by its run tag
    /// (or its file, or made unique).
    #[allow(clippy::too_many_arguments)]
    fn add_run(
        &mut self,
        file: &str,
        (name, tag): (String, String),
        queries: Interner,
        docs: Names,
        mut q: Vec<u32>,
        score: Vec<f64>,
        summary: &mut LoadSummary,
    ) {
        let data = self.ranking.get_or_insert_with(RankingData::default);
        let qmap = remap(&queries, &mut data.queries);
        q.iter_mut().for_each(|x| *x = qmap[*x as usize]);
        let existing: Vec<String> = data.runs.iter().map(|r| r.name.clone()).collect();
        let from_file = super::model_name_from_file(file);
        let name = if !existing.contains(&name) {
            if name != from_file {
                summary
                    .details
                    .push(format!("named {name} after its run tag"));
            }
            name
        } else if !existing.contains(&from_file) {
            summary.details.push(format!(
                "run tag {name} names a loaded model already: named {from_file} after the file"
            ));
            from_file
        } else {
            unique_name(&existing, &name)
        };
        let mut run = Run::from_rows(
            name.clone(),
            docs.into(),
            score.into(),
            &q,
            |_| true,
            data.queries.len(),
        );
        run.tag = tag;
        summary.format = "run".into();
        summary.kind = Some(Kind::Ranking);
        summary.rows = q.len();
        summary.details.push(format!(
            "{} queries, {} ranked documents",
            queries.len(),
            q.len()
        ));
        if !self.has_qrels {
            summary.warnings.push(NO_QRELS.into());
        }
        summary.models_added.push(name);
        data.runs.push(run);
    }

    /// Qrels: they replace the judgments loaded before.
    fn add_qrels(
        &mut self,
        queries: Interner,
        judgments: Qrels,
        rows: usize,
        duplicates: usize,
        summary: &mut LoadSummary,
    ) {
        let data = self.ranking.get_or_insert_with(RankingData::default);
        let qmap = remap(&queries, &mut data.queries);
        if self.has_qrels {
            summary
                .warnings
                .push("These judgments replace the qrels loaded before.".into());
        }
        let relevant = judgments.grades.iter().filter(|&&g| g >= 1).count();
        data.qrels = judgments.remap(&qmap, data.queries.len());
        self.has_qrels = true;
        summary.format = "qrels".into();
        summary.kind = Some(Kind::Ranking);
        summary.rows = rows;
        summary.details.push(format!(
            "{} queries, {} judgments, {} relevant (grade ≥ 1)",
            queries.len(),
            rows,
            relevant
        ));
        if duplicates > 0 {
            summary.warnings.push(format!("{duplicates} duplicated (query, document) judgments; the last one of each is kept."));
        }
    }

    /// A ranking CSV: its grades become the qrels, each score column a run.
    #[allow(clippy::too_many_arguments)]
    fn add_ranking_table(
        &mut self,
        queries: Interner,
        docs: Names,
        mut q: Vec<u32>,
        grade: Vec<Option<i32>>,
        models: Vec<(String, Vec<Option<f64>>)>,
        summary: &mut LoadSummary,
    ) {
        let data = self.ranking.get_or_insert_with(RankingData::default);
        let qmap = remap(&queries, &mut data.queries);
        q.iter_mut().for_each(|x| *x = qmap[*x as usize]);
        let nq = data.queries.len();
        let judged: Vec<(u32, u32)> = (0..q.len())
            .filter(|&i| grade[i].is_some())
            .map(|i| (q[i], i as u32))
            .collect();
        let grades: Vec<i32> = grade.iter().map(|g| g.unwrap_or(0)).collect();
        // a table without judgments (a run CSV) keeps the qrels loaded
        let mut dups = 0;
        if !judged.is_empty() {
            if self.has_qrels {
                summary
                    .warnings
                    .push("These judgments replace the qrels loaded before.".into());
            }
            let (qrels, d) = Qrels::build(&judged, &docs, &grades, nq);
            (data.qrels, dups) = (qrels, d);
            self.has_qrels = true;
        } else if !self.has_qrels {
            summary.warnings.push(NO_QRELS.into());
        }
        let names = std::sync::Arc::new(docs);
        let existing: Vec<String> = data.runs.iter().map(|r| r.name.clone()).collect();
        for (name, scores) in models {
            let kept: Vec<bool> = scores.iter().map(Option::is_some).collect();
            let dense: Vec<f64> = scores.iter().map(|s| s.unwrap_or(0.0)).collect();
            let name = unique_name(&existing, &name);
            summary.models_added.push(name.clone());
            data.runs.push(Run::from_rows(
                name,
                names.clone(),
                dense.into(),
                &q,
                |row| kept[row],
                nq,
            ));
        }
        summary.format = if judged.is_empty() {
            "run CSV (no judgments)"
        } else {
            "ranking CSV"
        }
        .into();
        summary.kind = Some(Kind::Ranking);
        summary.rows = q.len();
        summary.details.push(format!(
            "{} queries, {} rows, {} judged",
            queries.len(),
            q.len(),
            judged.len()
        ));
        if dups > 0 {
            summary.warnings.push(format!(
                "{dups} (query, item) pairs appear more than once; the last grade of each is kept."
            ));
        }
    }

    /// One of trec_eval's relation files (preferences, judgment groups, z-scores).
    fn add_relations(&mut self, mut r: super::Relations, summary: &mut LoadSummary) {
        let names: Vec<String> = self.relations.iter().map(|r| r.name.clone()).collect();
        r.name = unique_name(&names, &r.name);
        let (option, measures) = crate::parse::relations_command(r.format());
        summary.format = r.format().label().into();
        summary.rows = r.rows;
        summary.details.push(format!(
            "{} lines, {} queries; evaluated against every run by rankscope trec_eval {option} -m {measures}",
            r.rows, r.queries
        ));
        self.relations.push(r);
    }

    /// A binary CSV: its models join the loaded ones on the same labels.
    fn add_binary(
        &mut self,
        file: &str,
        b: BinaryData,
        summary: &mut LoadSummary,
    ) -> Result<(), LoadError> {
        summary.format = "binary CSV".into();
        summary.kind = Some(Kind::Binary);
        summary.rows = b.labels.len();
        let positives = b.positives();
        summary.details.push(format!(
            "{} rows, {} positives, {} negatives",
            b.labels.len(),
            positives,
            b.labels.len() - positives
        ));
        for (i, (name, _)) in b.models.iter().enumerate() {
            let outside = b.outside_unit(i);
            if outside > 0 {
                summary.warnings.push(format!("{name}: {outside} scores outside [0, 1]; log loss and Brier need probabilities (or mark them as logits; CLI: --logits)."));
            }
        }
        if positives == 0 {
            summary.warnings.push("No row is positive: ROC AUC is undefined, average precision is 0 (scikit-learn's rule), and recall is ill-defined (its value is zero_division's).".into());
        } else if positives == b.labels.len() {
            summary
                .warnings
                .push("Every row is positive: ROC AUC is undefined.".into());
        }
        match &mut self.binary {
            Some(existing) => {
                if existing.labels != b.labels {
                    let row = existing
                        .labels
                        .iter()
                        .zip(&b.labels)
                        .position(|(a, b)| a != b)
                        .unwrap_or(existing.labels.len().min(b.labels.len()));
                    return Err(LoadError::single(
                        file,
                        row as u64 + 2,
                        0,
                        format!("the same labels as the binary data already loaded ({} rows)", existing.labels.len()),
                        format!("{} rows whose labels differ from row {}", b.labels.len(), row + 1),
                        Some("Several models are compared on the same rows: remove the loaded data first to start over.".into()),
                    ));
                }
                let names: Vec<String> = existing.models.iter().map(|m| m.0.clone()).collect();
                let built: Vec<_> = (0..b.models.len()).map(|i| b.built_curve(i)).collect();
                for ((name, scores), curve) in b.models.into_iter().zip(built) {
                    let name = unique_name(&names, &name);
                    summary.models_added.push(name.clone());
                    existing.push_model(name, scores, curve);
                }
            }
            None => {
                summary.models_added = b.models.iter().map(|m| m.0.clone()).collect();
                self.binary = Some(b);
            }
        }
        Ok(())
    }

    /// A ratings CSV: its models join the loaded ones on the same rows.
    fn add_ratings(
        &mut self,
        file: &str,
        r: RatingsData,
        summary: &mut LoadSummary,
    ) -> Result<(), LoadError> {
        summary.format = "ratings CSV".into();
        summary.kind = Some(Kind::Ratings);
        summary.rows = r.rating.len();
        summary.details.push(format!(
            "{} ratings, {} users, {} items",
            r.rating.len(),
            r.users.len(),
            r.items.len()
        ));
        match &mut self.ratings {
            Some(existing) => {
                let same = existing.rating == r.rating
                    && existing
                        .user
                        .iter()
                        .map(|&u| existing.users.name(u))
                        .eq(r.user.iter().map(|&u| r.users.name(u)))
                    && existing
                        .item
                        .iter()
                        .map(|&i| existing.items.name(i))
                        .eq(r.item.iter().map(|&i| r.items.name(i)));
                if !same {
                    return Err(LoadError::single(
                        file,
                        0,
                        0,
                        "the same (user, item, rating) rows as the ratings already loaded",
                        "other rows",
                        None,
                    ));
                }
                let names: Vec<String> = existing.models.iter().map(|m| m.0.clone()).collect();
                for (name, p) in r.models {
                    let name = unique_name(&names, &name);
                    summary.models_added.push(name.clone());
                    existing.models.push((name, p));
                }
            }
            None => {
                summary.models_added = r.models.iter().map(|m| m.0.clone()).collect();
                self.ratings = Some(r);
            }
        }
        Ok(())
    }

    /// Merges a parsed file. On error nothing changes.
    pub fn add(&mut self, file: &str, parsed: Parsed) -> Result<LoadSummary, LoadError> {
        let (mut parsed, notes) = parsed.into_parts();
        parsed.show_hidden_in_names();
        if let Some(max) = self.max_values {
            let (held, adding) = (self.values(), parsed.values());
            if held + adding > max {
                return Err(LoadError::single(
                    file,
                    0,
                    0,
                    format!(
                        "at most {} values loaded at once (one per score of a row, {} per query of a run), the most a browser tab's 32-bit memory evaluates safely",
                        super::grouped(max),
                        super::QUERY_VALUES
                    ),
                    format!(
                        "{} already loaded and {} in this file",
                        super::grouped(held),
                        super::grouped(adding)
                    ),
                    Some("Remove models or clear the page first, or evaluate the files with the command-line tool (rankscope eval), which has no such limit.".into()),
                ));
            }
        }
        let mut summary = LoadSummary {
            file: file.to_string(),
            ..Default::default()
        };
        match parsed {
            // into_parts took every note off
            Parsed::Noted { .. } => {}
            Parsed::Run {
                name,
                tag,
                queries,
                docs,
                q,
                score,
            } => self.add_run(file, (name, tag), queries, docs, q, score, &mut summary),
            Parsed::Qrels {
                queries,
                judgments,
                rows,
                duplicates,
            } => self.add_qrels(queries, judgments, rows, duplicates, &mut summary),
            Parsed::RankingTable {
                queries,
                docs,
                q,
                grade,
                models,
            } => self.add_ranking_table(queries, docs, q, grade, models, &mut summary),
            Parsed::Relations(r) => self.add_relations(r, &mut summary),
            Parsed::Measures(p) => {
                summary.format = "trec_eval output".into();
                self.add_precomputed(vec![p], &mut summary);
            }
            Parsed::PerQuery(list) => {
                summary.format = "per-query values".into();
                self.add_precomputed(list, &mut summary);
            }
            Parsed::Binary(b) => self.add_binary(file, b, &mut summary)?,
            Parsed::Classes { names, parsed } => match *parsed {
                Parsed::Multiclass(mut m) => {
                    m.class_names = Some(names);
                    self.add_multiclass(file, m, &mut summary)?;
                }
                _ => {
                    return Err(LoadError::single(
                        file,
                        0,
                        0,
                        "multi-class data with its class names",
                        "other data",
                        None,
                    ))
                }
            },
            Parsed::Multiclass(m) => self.add_multiclass(file, m, &mut summary)?,
            Parsed::Ratings(r) => self.add_ratings(file, r, &mut summary)?,
        }
        self.files.push(file.to_string());
        if let Some(kind) = summary.kind {
            for m in &summary.models_added {
                self.origins.push((file.to_string(), kind, m.clone()));
            }
        }
        for note in notes {
            // lists keyed by users: said with the file's details, kept on the data
            if note.starts_with(super::BY_USER) {
                if let Some(d) = &mut self.ranking {
                    d.by_user = true;
                }
                summary.details.push(note);
            } else {
                summary.warnings.push(note);
            }
        }
        Ok(summary)
    }

    /// [`Workspace::add`] of a file loaded before, whose models replace the
    /// ones its earlier copy brought (said in the summary; see
    /// [`Workspace::replace_earlier`]).
    pub fn add_again(&mut self, file: &str, parsed: Parsed) -> Result<LoadSummary, LoadError> {
        let mut summary = self.add(file, parsed)?;
        if let Some(kind) = summary.kind {
            let gone = self.replace_earlier(file, kind, &mut summary.models_added);
            if !gone.is_empty() {
                summary.details.push(format!(
                    "replaced the models of its earlier copy ({})",
                    gone.join(", ")
                ));
                if gone.len() == summary.models_added.len() {
                    summary.models_added = gone;
                }
            }
        }
        Ok(summary)
    }

    /// After `file` was loaded again (its models `added`, of `kind`): the
    /// models the earlier copy brought are removed and, when as many, the new
    /// ones take their names (else a new one numbered after a removed one,
    /// `bench (2)`, takes its name back); `added` is kept up to date with
    /// the names taken. Returns the names removed.
    pub fn replace_earlier(&mut self, file: &str, kind: Kind, added: &mut [String]) -> Vec<String> {
        let earlier: Vec<String> = self
            .origins
            .iter()
            .filter(|o| o.0 == file && o.1 == kind && !added.contains(&o.2))
            .map(|o| o.2.clone())
            .collect();
        for m in &earlier {
            self.remove_model(kind, m);
        }
        if earlier.len() == added.len() {
            for (new, old) in added.iter().zip(&earlier) {
                self.rename(kind, new, old);
            }
        } else {
            // fewer or more: a new model named after a removed one with a
            // number (`bench (2)`, as a name already taken is given) takes
            // that name back, so what is keyed by it (the baseline) holds
            for new in added.iter_mut() {
                let base = new
                    .strip_suffix(')')
                    .and_then(|n| n.rsplit_once(" ("))
                    .filter(|(_, k)| k.bytes().all(|b| b.is_ascii_digit()))
                    .map(|(base, _)| base);
                if let Some(base) = base.filter(|b| earlier.iter().any(|e| e == b)) {
                    if self.rename(kind, new, base) {
                        *new = base.to_string();
                    }
                }
            }
        }
        earlier
    }

    /// Parses and merges one whole file.
    pub fn load_bytes(
        &mut self,
        file: &str,
        bytes: &[u8],
        options: &super::LoadOptions,
    ) -> Result<LoadSummary, LoadError> {
        let parsed = super::parse_bytes(file, bytes, options)?;
        self.add(file, parsed)
    }

    /// Merges a multi-class file: its targets must be the loaded ones; classes
    /// named by text ids (a top-k file's) are matched by name, numbered ones
    /// by number.
    fn add_multiclass(
        &mut self,
        file: &str,
        mut m: MulticlassData,
        summary: &mut LoadSummary,
    ) -> Result<(), LoadError> {
        if let Some(existing) = &mut self.multiclass {
            if existing.class_names.is_some() || m.class_names.is_some() {
                let refuse = |expected: String, found: String| {
                    LoadError::single(file, 0, 0, expected, found, None)
                };
                if let Some(p) = existing
                    .models
                    .iter()
                    .chain(&m.models)
                    .find(|p| !p.is_list())
                {
                    return Err(refuse(
                        "top-k lists (classes named by text ids are matched by name; a probability matrix's classes are its numbered columns)".into(),
                        format!("the probability matrix of model '{}' beside classes named by text", p.name),
                    ));
                }
                // one table, the loaded classes first (their names keep their numbers)
                let mut table = existing.class_names.clone().unwrap_or_default();
                let targets: Vec<u32> = existing
                    .targets
                    .iter()
                    .map(|&t| table.intern(&existing.class_name(t)))
                    .collect();
                renumber_classes(&mut m, &mut table);
                if targets != m.targets {
                    return Err(refuse(
                        format!(
                            "the same targets as the multi-class data already loaded ({} rows)",
                            existing.targets.len()
                        ),
                        format!("{} rows with other targets", m.targets.len()),
                    ));
                }
                renumber_classes(existing, &mut table);
                existing.num_classes = table.len();
                m.num_classes = table.len();
                existing.class_names = Some(table);
            }
        }
        summary.format = if m.models.first().is_some_and(|p| p.is_list()) {
            "multi-class top-k list".into()
        } else {
            "multi-class matrix".into()
        };
        summary.kind = Some(Kind::Multiclass);
        summary.rows = m.targets.len();
        summary.details.push(format!(
            "{} rows, {} classes",
            m.targets.len(),
            m.num_classes
        ));
        let tied = m
            .models
            .first()
            .map_or(0, |p| p.rows.iter().filter(|r| r.is_tied()).count());
        if tied > 0 {
            summary.warnings.push(format!(
                "{tied} targets tie with another class; their rank follows the class tie rule."
            ));
        }
        let off = m.rows_off_one.first().copied().unwrap_or(0);
        if off > 0 {
            summary.warnings.push(format!("{off} rows do not sum to 1 within 1e-3: logits? (Conventions ▸ Matrix holds; CLI: --class-logits)"));
        }
        match &mut self.multiclass {
            Some(existing) => {
                if existing.targets != m.targets {
                    return Err(LoadError::single(
                        file,
                        0,
                        0,
                        format!(
                            "the same targets as the multi-class data already loaded ({} rows)",
                            existing.targets.len()
                        ),
                        format!("{} rows with other targets", m.targets.len()),
                        None,
                    ));
                }
                let names: Vec<String> = existing.models.iter().map(|m| m.name.clone()).collect();
                for mut model in m.models {
                    model.name = unique_name(&names, &model.name);
                    summary.models_added.push(model.name.clone());
                    existing.models.push(model);
                }
                existing.rows_off_one.extend(m.rows_off_one);
                existing.num_classes = existing.num_classes.max(m.num_classes);
            }
            None => {
                summary.models_added = m.models.iter().map(|m| m.name.clone()).collect();
                self.multiclass = Some(m);
            }
        }
        Ok(())
    }

    /// A model's name as typed, as a rename stores it: trimmed, controls
    /// and invisible characters written as escapes.
    pub fn model_name(typed: &str) -> String {
        rankscope_core::text::visible(typed.trim()).into_owned()
    }

    /// Renames a model of `kind`; false if the name is taken or not found.
    pub fn rename(&mut self, kind: Kind, old: &str, new: &str) -> bool {
        let new = &*Self::model_name(new);
        if new.is_empty() {
            return false;
        }
        let names: Vec<&mut String> = match kind {
            Kind::Ranking => self
                .ranking
                .iter_mut()
                .flat_map(|d| d.runs.iter_mut().map(|r| &mut r.name))
                .collect(),
            Kind::Binary => self
                .binary
                .iter_mut()
                .flat_map(|d| d.models.iter_mut().map(|m| &mut m.0))
                .collect(),
            Kind::Multiclass => self
                .multiclass
                .iter_mut()
                .flat_map(|d| d.models.iter_mut().map(|m| &mut m.name))
                .collect(),
            Kind::Ratings => self
                .ratings
                .iter_mut()
                .flat_map(|d| d.models.iter_mut().map(|m| &mut m.0))
                .collect(),
        };
        if names.iter().any(|n| n.as_str() == new) {
            return false;
        }
        for n in names {
            if n == old {
                *n = new.to_string();
                for o in self
                    .origins
                    .iter_mut()
                    .filter(|o| o.1 == kind && o.2 == old)
                {
                    o.2 = new.to_string();
                }
                return true;
            }
        }
        false
    }

    /// Removes a model of `kind`; the data set goes when its last model goes.
    pub fn remove_model(&mut self, kind: Kind, name: &str) {
        self.origins.retain(|o| o.1 != kind || o.2 != name);
        match kind {
            Kind::Ranking => {
                if let Some(d) = &mut self.ranking {
                    d.runs.retain(|r| r.name != name);
                }
            }
            Kind::Binary => {
                if let Some(d) = &mut self.binary {
                    d.retain_models(|m| m != name);
                    if d.models.is_empty() {
                        self.binary = None;
                    }
                }
            }
            Kind::Multiclass => {
                if let Some(d) = &mut self.multiclass {
                    let keep: Vec<bool> = d.models.iter().map(|m| m.name != name).collect();
                    let mut i = 0;
                    d.models.retain(|_| {
                        i += 1;
                        keep[i - 1]
                    });
                    let mut j = 0;
                    d.rows_off_one.retain(|_| {
                        j += 1;
                        keep[j - 1]
                    });
                    if d.models.is_empty() {
                        self.multiclass = None;
                    }
                }
            }
            Kind::Ratings => {
                if let Some(d) = &mut self.ratings {
                    d.models.retain(|m| m.0 != name);
                    if d.models.is_empty() {
                        self.ratings = None;
                    }
                }
            }
        }
    }
}

impl Workspace {
    /// The workspace as parsed files that [`Workspace::add`] merges back into
    /// an equal workspace (same models, names, rows, values): the form a saved
    /// session or report carries, checked on the way in like any dropped file.
    /// Judgments come before the runs that need them.
    pub fn to_files(&self) -> Vec<(String, Parsed)> {
        let mut out = Vec::new();
        if let Some(d) = &self.ranking {
            // lists keyed by users stay users' ([`super::BY_USER`])
            let notes = || match d.by_user {
                true => vec![super::by_user_note("user_id")],
                false => Vec::new(),
            };
            if self.has_qrels {
                out.push((
                    "session.qrels".to_string(),
                    Parsed::Qrels {
                        queries: d.queries.clone(),
                        judgments: d.qrels.clone(),
                        rows: d.qrels.num_judgments(),
                        duplicates: 0,
                    }
                    .noted(notes()),
                ));
            }
            for run in &d.runs {
                let (mut q, mut docs, mut score) = (Vec::new(), Names::default(), Vec::new());
                for query in 0..d.queries.len() as u32 {
                    for &row in &run.rows[run.query_range(query)] {
                        q.push(query);
                        docs.push(run.doc(row));
                        score.push(run.scores[row as usize]);
                    }
                }
                out.push((
                    format!("{}.run", run.name),
                    Parsed::Run {
                        name: run.name.clone(),
                        tag: run.tag.clone(),
                        queries: d.queries.clone(),
                        q,
                        docs,
                        score,
                    }
                    .noted(notes()),
                ));
            }
        }
        if let Some(b) = &self.binary {
            out.push(("session.csv".into(), Parsed::Binary(b.clone())));
        }
        if let Some(m) = &self.multiclass {
            let data = Parsed::Multiclass(m.clone());
            out.push((
                "session.csv".into(),
                match &m.class_names {
                    Some(names) => Parsed::Classes {
                        names: names.clone(),
                        parsed: Box::new(data),
                    },
                    None => data,
                },
            ));
        }
        if let Some(r) = &self.ratings {
            out.push(("session.csv".into(), Parsed::Ratings(r.clone())));
        }
        for p in &self.precomputed {
            out.push((p.name.clone(), Parsed::Measures(p.clone())));
        }
        for r in &self.relations {
            out.push((r.name.clone(), Parsed::Relations(r.clone())));
        }
        out
    }
}

/// The values of `files` as a report, one model per file or model: each
/// measure's per-query values (queries in byte-wise order of their ids, as
/// the core orders them; the last value of a query as written) and its
/// value: the file's `all` line when it has one (trec_eval's), else the
/// per-query values aggregated as the core aggregates them
/// ([`rankscope_core::evaluate::aggregate`]); none for a measure some query lacks, or FCP and
/// Spearman (ratios over pairs, not means). Measures some query lacks
/// have no per-query column (nothing to pair).
pub fn values_report<'a>(
    files: impl Iterator<Item = &'a super::Precomputed> + Clone,
) -> rankscope_core::evaluate::Report {
    use rankscope_core::evaluate::{aggregate, ModelReport, Report};
    use rankscope_core::registry::{Kind, MetricId};
    let mut columns: Vec<String> = Vec::new();
    for p in files.clone() {
        for m in p.measure_names() {
            if !columns.iter().any(|c| c == m) {
                columns.push(m.to_string());
            }
        }
    }
    let models = files
        .map(|p| {
            let all = p.queries.get("all");
            let mut present = vec![false; p.queries.len()];
            for &q in &p.q {
                present[q as usize] = Some(q) != all;
            }
            let mut units: Vec<u32> = (0..p.queries.len() as u32)
                .filter(|&q| present[q as usize])
                .collect();
            p.queries.sort_by_name(&mut units);
            let mut slot = vec![usize::MAX; p.queries.len()];
            for (i, &q) in units.iter().enumerate() {
                slot[q as usize] = i;
            }
            let mut cols = vec![vec![f64::NAN; units.len()]; p.measures.len()];
            let mut summary = vec![None; p.measures.len()];
            for i in 0..p.m.len() {
                let (m, q) = (p.m[i] as usize, p.q[i]);
                if Some(q) == all {
                    summary[m] = Some(p.value[i]);
                } else {
                    cols[m][slot[q as usize]] = p.value[i];
                }
            }
            let mut out = ModelReport {
                name: p.name.clone(),
                unit_ids: units
                    .iter()
                    .map(|&q| p.queries.name(q).to_string())
                    .collect(),
                ..Default::default()
            };
            for (j, col) in cols.into_iter().enumerate() {
                let name = p.measures.name(j as u32);
                let base = MetricId::parse(name, Kind::Ranking)
                    .map_or_else(|_| name.to_string(), |id| id.base);
                let complete = !col.is_empty() && col.iter().all(|v| !v.is_nan());
                // score–grade agreement pools pairs: not a mean of the queries' values
                let pairs = rankscope_core::registry::info(&base, Kind::Ranking).is_some_and(|m| {
                    matches!(
                        m.compute,
                        rankscope_core::registry::Compute::Agreement { .. }
                    )
                });
                let value =
                    summary[j].or_else(|| (complete && !pairs).then(|| aggregate(&base, &col)));
                out.metrics.insert(name.to_string(), value);
                if complete {
                    out.per_unit.insert(name.to_string(), col);
                }
            }
            out
        })
        .collect();
    Report {
        kind: Kind::Ranking,
        columns,
        conventions: Default::default(),
        models,
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_bytes, LoadOptions};
    use rankscope_core::binary::BinaryCurve;

    /// Zero-width and right-to-left characters are shown in model names, so
    /// two models never look alike: from headers, file names and renames.
    #[test]
    fn hidden_characters_in_model_names_are_shown() {
        let mut ws = Workspace::default();
        let text = "label,bm25,bm\u{200b}25,x\u{202e}y\n1,0.9,0.8,0.1\n0,0.1,0.2,0.3\n";
        ws.load_bytes("b.csv", text.as_bytes(), &LoadOptions::default())
            .unwrap();
        let names = ws.dataset(Kind::Binary).unwrap().model_names();
        assert_eq!(names, ["bm25", "bm\\u{200b}25", "x\\u{202e}y"]);
        assert!(ws.rename(Kind::Binary, "bm25", "b\u{200d}m"));
        assert_eq!(
            ws.dataset(Kind::Binary).unwrap().model_names()[0],
            "b\\u{200d}m"
        );
    }

    /// A run is named by its tag (trec_eval's runid), by its file when
    /// another model has that name already or when it has no tag.
    #[test]
    fn runs_are_named_by_their_tag_else_by_their_file() {
        let mut ws = Workspace::default();
        let o = LoadOptions::default();
        let run = |tag: &str| format!("q1 Q0 d1 1 2 {tag}\nq1 Q0 d2 2 1 {tag}\n");
        let s = ws
            .load_bytes("bm25.run", run("BM25-k1").as_bytes(), &o)
            .unwrap();
        assert_eq!(s.models_added, ["BM25-k1"]);
        assert!(s
            .details
            .iter()
            .any(|d| d == "named BM25-k1 after its run tag"));
        let s = ws
            .load_bytes("rm3.run", run("BM25-k1").as_bytes(), &o)
            .unwrap();
        assert_eq!(s.models_added, ["rm3"]);
        assert!(s
            .details
            .iter()
            .any(|d| d.contains("named rm3 after the file")));
        let s = ws
            .load_bytes("rm3.run", run("BM25-k1").as_bytes(), &o)
            .unwrap();
        assert_eq!(s.models_added, ["BM25-k1 (2)"]);
        // a tag equal to the file's name says nothing more
        let s = ws
            .load_bytes("dense.run", run("dense").as_bytes(), &o)
            .unwrap();
        assert_eq!(s.models_added, ["dense"]);
        assert!(!s.details.iter().any(|d| d.contains("run tag")));
    }

    /// A file loaded again can replace what its earlier copy brought: the
    /// new models take the old names, through renames.
    #[test]
    fn a_run_csv_keeps_the_judgments_loaded_and_says_when_there_are_none() {
        let o = LoadOptions::default();
        let run = b",query_id,doc_id,score\n0,q1,d1,0.9\n1,q1,d2,0.5\n";
        let mut ws = Workspace::default();
        let s = ws.load_bytes("first.csv", run, &o).unwrap();
        assert_eq!(s.format, "run CSV (no judgments)");
        assert!(
            s.warnings
                .iter()
                .any(|w| w.starts_with("No relevance judgments yet")),
            "{s:?}"
        );
        assert!(
            ws.datasets().is_empty(),
            "nothing to evaluate without judgments"
        );
        // judgments from a ranking CSV, then another run CSV: they stay
        let judged = b"query_id,item_id,relevance\nq1,d2,1\n";
        ws.load_bytes("qrels.csv", judged, &o).unwrap();
        let s = ws.load_bytes("second.csv", run, &o).unwrap();
        assert!(s.warnings.iter().all(|w| !w.contains("judgments")), "{s:?}");
        let d = ws.ranking.as_ref().unwrap();
        assert_eq!(d.runs.len(), 2);
        assert_eq!(d.qrels.grades, [1]);
        assert_eq!(ws.datasets().len(), 1);
    }

    #[test]
    fn a_file_loaded_again_replaces_its_earlier_models() {
        let mut ws = Workspace::default();
        let o = LoadOptions::default();
        ws.load_bytes("m.csv", b"label,a,b\n1,0.9,0.2\n0,0.1,0.8\n", &o)
            .unwrap();
        assert!(ws.rename(Kind::Binary, "a", "mine"));
        let parsed =
            crate::parse::parse_bytes("m.csv", b"label,a,b\n1,0.7,0.6\n0,0.3,0.4\n", &o).unwrap();
        let s = ws.add_again("m.csv", parsed).unwrap();
        assert_eq!(s.models_added, ["mine", "b"]);
        assert!(s
            .details
            .iter()
            .any(|d| d == "replaced the models of its earlier copy (mine, b)"));
        let d = ws.binary.as_ref().unwrap();
        let names: Vec<&str> = d.models.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(names, ["mine", "b"]);
        assert_eq!(d.models[0].1, [0.7, 0.3]);
        assert_eq!(ws.origins.len(), 2);
    }

    /// A file loaded twice (beside) and then again (replacing both copies):
    /// its one model takes its first name back, not a numbered one.
    #[test]
    fn a_file_replacing_two_copies_takes_its_name_back() {
        let mut ws = Workspace::default();
        let o = LoadOptions::default();
        let csv = b"label,score\n1,0.9\n0,0.1\n";
        ws.load_bytes("m.csv", csv, &o).unwrap();
        ws.load_bytes("m.csv", csv, &o).unwrap();
        let names = |ws: &Workspace| -> Vec<String> {
            let d = ws.binary.as_ref().unwrap();
            d.models.iter().map(|m| m.0.clone()).collect()
        };
        assert_eq!(names(&ws), ["m", "m (2)"]);
        let parsed = crate::parse::parse_bytes("m.csv", csv, &o).unwrap();
        let s = ws.add_again("m.csv", parsed).unwrap();
        assert_eq!(names(&ws), ["m"]);
        assert_eq!(s.models_added, ["m"]);
    }

    /// What a binary file's summary says is the same whether its curves came
    /// built (the page: from the loading workers) or not (counted from the rows).
    #[test]
    fn a_binary_summary_reads_the_same_off_built_curves() {
        let text = b"label,a,b\n1,0.5,2\n0,-1,0.25\n1,1,1\n0,0,-0.5\n0,1.5,0.5\n";
        let Ok(Parsed::Binary(rows)) = parse_bytes("b.csv", text, &LoadOptions::default()) else {
            panic!("a binary file");
        };
        let mut built = rows.clone();
        let curves = built
            .models
            .iter()
            .map(|(_, s)| BinaryCurve::new(&built.labels, s))
            .collect();
        built.set_curves(curves).unwrap();
        let summary = |b| {
            Workspace::default()
                .add("b.csv", Parsed::Binary(b))
                .unwrap()
        };
        let (counted, read_off) = (summary(rows), summary(built));
        assert_eq!(counted, read_off);
        assert_eq!(counted.details, ["5 rows, 2 positives, 3 negatives"]);
        assert_eq!(counted.warnings.len(), 2);
        assert!(counted.warnings[0].starts_with("a: 2 scores outside [0, 1]"));
        assert!(counted.warnings[1].starts_with("b: 2 scores outside [0, 1]"));
    }
}
