//! The teaching page (dist/learn/, its own wasm): short lessons written from
//! the seed documents, each ending on a widget, and the two playgrounds. Every
//! number is computed by the core, the same code as the dashboard.

use leptos::prelude::*;

use super::classify::{self, ClassificationPlayground};
use super::explain_view::Formula;
use super::playground::{RankingPlayground, SEED_004};
use crate::core::binary;
use crate::core::ranking::QueryView;
use crate::core::ranking_metrics::{discount_at, Discount, Gain};
use crate::core::registry::{self, id, Kind};

pub fn main() {
    console_error_panic_hook::set_once();
    super::share::register_service_worker("../sw.js");
    leptos::mount::mount_to_body(Learn);
}

/// (fragment id, title, its sources).
const PAGES: &[(&str, &str, &str)] = &[
    (
        "hits",
        "One right answer: Acc@k and MRR",
        "Voorhees 1999 (MRR)",
    ),
    (
        "discounts",
        "How fast credit fades: MRR and nDCG discounts",
        "Voorhees 1999; Järvelin & Kekäläinen 2002",
    ),
    (
        "graded",
        "Graded relevance: DCG, IDCG and nDCG",
        "Järvelin & Kekäläinen 2002; Burges et al. 2005",
    ),
    (
        "precision",
        "Precision, recall and average precision at k",
        "Manning, Raghavan & Schütze 2008, ch. 8; trec_eval",
    ),
    (
        "thresholds",
        "Scores, thresholds, ROC and PR",
        "Fawcett 2006 (ROC); Davis & Goadrich 2006 (PR)",
    ),
    (
        "imbalance",
        "Class imbalance: when accuracy misleads",
        "Saito & Rehmsmeier 2015; Chicco & Jurman 2020",
    ),
    (
        "confidence",
        "Confidence: log loss and cross-entropy",
        "Gneiting & Raftery 2007; Guo et al. 2017",
    ),
    ("ranking", "Playground: a toy ranking", ""),
    ("classification", "Playground: scored examples", ""),
];

fn hash_page() -> String {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let id = hash.trim_start_matches('#');
    PAGES
        .iter()
        .find(|p| p.0 == id)
        .map_or(PAGES[0].0, |p| p.0)
        .to_string()
}

#[component]
fn Learn() -> impl IntoView {
    let page = RwSignal::new(hash_page());
    let listener = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || page.set(hash_page()));
    if let Some(w) = web_sys::window() {
        use wasm_bindgen::JsCast;
        let _ = w.add_event_listener_with_callback("hashchange", listener.as_ref().unchecked_ref());
    }
    listener.forget(); // lives as long as the page
    Effect::new(move |_| {
        let id = page.get();
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            let title = PAGES.iter().find(|p| p.0 == id).map_or("", |p| p.1);
            doc.set_title(&format!("{title} · Rankscope Learn"));
        }
    });
    view! {
        <div class="app learn">
            <header class="top">
                <h1>"Rankscope · Learn"</h1>
                <span class="tagline">"what the metrics measure, on examples you can change"</span>
                <span class="spacer"></span>
                <a class="button" href="../" id="to-dashboard">"Open the dashboard"</a>
            </header>
            <div class="learn-layout">
                <nav class="lessons" aria-label="lessons">
                    <ol>
                        {PAGES.iter().map(|&(id, title, _)| view! {
                            <li><a href=format!("#{id}") data-page=id
                                aria-current=move || (page.get() == id).then_some("page")>{title}</a></li>
                        }).collect_view()}
                    </ol>
                </nav>
                <main class="lesson" id="lesson">
                    {move || {
                        let id = page.get();
                        let (title, sources) = PAGES.iter().find(|p| p.0 == id).map_or(("", ""), |p| (p.1, p.2));
                        let next = PAGES.iter().position(|p| p.0 == id).and_then(|i| PAGES.get(i + 1));
                        view! {
                            <article class="card" data-lesson=id.clone()>
                                <h2>{title}</h2>
                                {(!sources.is_empty()).then(|| view! { <p class="muted small">"Sources: " {sources} "."</p> })}
                                {lesson(&id)}
                                {next.map(|n| view! { <p class="next"><a class="button" href=format!("#{}", n.0) id="next-lesson">{format!("Next: {} →", n.1)}</a></p> })}
                            </article>
                        }
                    }}
                </main>
            </div>
        </div>
    }
}

fn tex(kind: Kind, base: &str) -> &'static str {
    registry::info(base, kind).map_or("", |m| m.tex())
}

fn lesson(id: &str) -> AnyView {
    match id {
        "hits" => view! {
            <p>"In next-item and next-location prediction, and in known-item search, every example has exactly one right answer, and the model returns a ranked list of candidates. The only question is where the answer landed."</p>
            <p><strong>"Accuracy@k"</strong>" (also called Hit@k, or Recall@k when there is one relevant item) counts the examples whose answer is among the first k. It is all-or-nothing: rank 2 and rank 10 are the same miss for Acc@1, the same hit for Acc@10."</p>
            <Formula tex=tex(Kind::Multiclass, id::ACC)/>
            <p><strong>"The reciprocal rank"</strong>" gives partial credit instead: 1 at rank 1, ½ at rank 2, ⅓ at rank 3, 0 when the answer is missing. Its mean over examples is the MRR."</p>
            <Formula tex=tex(Kind::Multiclass, id::MRR)/>
            <p>"Three relations always hold, whatever the model:"</p>
            <ul>
                <li>"Acc@1 ≤ Acc@5 ≤ Acc@10: an answer in the top 1 is also in the top 5 and the top 10."</li>
                <li>"Acc@1 ≤ MRR ≤ 1: a rank-1 answer earns 1 in both, any other earns 0 in Acc@1 and something in MRR."</li>
                <li>"MRR ≤ (1 + Acc@1) / 2: an answer that is not first earns at most ½."</li>
            </ul>
            <p>"Change the ranks below and try to break them."</p>
            <RanksWidget/>
        }.into_any(),
        "discounts" => view! {
            <p>"MRR and nDCG both give less credit to an answer further down the list; they differ in how fast the credit fades. The reciprocal rank divides by the rank itself. nDCG divides by log₂(rank + 1), which falls much more slowly, and a cutoff k (nDCG@10) sets everything after rank k to 0."</p>
            <Formula tex=r"\text{RR} = \frac{1}{rank}, \quad \text{nDCG} = \frac{1}{\log_2(rank + 1)} \quad \text{(one relevant item, IDCG = 1)}"/>
            <p>"At rank 2, MRR already halves the credit while nDCG keeps 63 %. At rank 10 nDCG still keeps 29 %, MRR 10 %. So MRR is the stricter judge of where the first right answer lands; nDCG cares about the whole top of the list. One of the source documents uses another common discount, 1 for the first two ranks and 1 / log₂ rank after (Järvelin and Kekäläinen's form); the dashboard offers both."</p>
            <DiscountWidget/>
        }.into_any(),
        "graded" => view! {
            <p>"When judgments have grades (0 = not relevant up to, say, 5 = perfect), a good list puts the best documents first. DCG adds up each document's gain, discounted by its rank:"</p>
            <Formula tex=tex(Kind::Ranking, id::DCG)/>
            <p>"The gain is the grade itself (trec_eval) or 2^grade − 1 (Burges et al.; it rewards the top grades much more). DCG has no fixed scale: it grows with the number and the grades of the relevant documents, so it cannot be averaged fairly over queries. nDCG divides it by the DCG of the ideal order, the same judged documents sorted by grade (IDCG), and lies between 0 and 1."</p>
            <Formula tex=tex(Kind::Ranking, id::NDCG)/>
            <p>"A worked example: the grades in ranked order are 0, 5, 1, 4, 2. DCG = 0/1 + 5/1.585 + 1/2 + 4/2.322 + 2/2.585 = 6.151; the ideal order 5, 4, 2, 1, 0 gives IDCG = 8.954; nDCG = 6.151 / 8.954 = 0.687. Reorder the documents below, change their grades, and watch each term."</p>
            <RankingPlayground grades=&SEED_004 k=5/>
        }.into_any(),
        "precision" => view! {
            <p><strong>"Precision at k"</strong>" is the share of the first k results that are relevant: it asks whether the user's time was well spent. "<strong>"Recall at k"</strong>" is the share of all relevant documents that made it into the first k: it asks whether anything good was missed. They pull against each other as k grows."</p>
            <Formula tex=tex(Kind::Ranking, id::PRECISION)/>
            <Formula tex=tex(Kind::Ranking, id::RECALL)/>
            <p><strong>"Average precision"</strong>" looks at the precision at each rank where a relevant document appears and averages those values over the number of relevant documents, so a relevant document found early lifts every precision after it. One of the source documents puts it this way: if the first relevant item is third, its precision is 1/3; if the next one is fifth, its precision is 2/5. With two relevant documents, AP = (1/3 + 2/5) / 2 = 0.367. MAP is the mean of AP over queries or users."</p>
            <Formula tex=tex(Kind::Ranking, id::MAP)/>
            <p>"The list below starts on that example. A relevant document that is never retrieved still counts in the denominator (trec_eval's rule)."</p>
            <RankingPlayground grades=&[0, 0, 1, 0, 1, 0, 0, 0] k=8/>
        }.into_any(),
        "thresholds" => view! {
            <p>"A classifier outputs a score; it becomes a decision only once a threshold is chosen. Every threshold splits the examples into the four cells of the confusion matrix: true and false positives, false and true negatives. Accuracy, precision, recall, F1 and MCC are all read off those four numbers, so each depends on the threshold."</p>
            <Formula tex=tex(Kind::Binary, id::PRECISION)/>
            <Formula tex=tex(Kind::Binary, id::MCC)/>
            <p>"The ROC curve shows every threshold at once: the true positive rate against the false positive rate as the threshold slides down. Its area, ROC AUC, is the probability that a random positive scores higher than a random negative (a tie counts ½); it ignores the threshold altogether. The precision–recall curve plots precision against recall; its step-wise area, average precision, is the better summary when positives are rare, because the huge number of true negatives cannot flatter it."</p>
            <Formula tex=tex(Kind::Binary, id::ROC_AUC)/>
            <p>"Drag the examples and the threshold below. Click a metric to see its computation."</p>
            <ClassificationPlayground start=classify::BALANCED threshold=0.5/>
        }.into_any(),
        "imbalance" => view! {
            <p>"Accuracy misleads when classes are imbalanced. An example: 1000 samples of location A, of which the model recognises 60 %, and 10 samples of location B, of which it recognises 10 %. Below, B is the positive class and the threshold is 0.5: 600 A and 1 B are classified correctly, so accuracy = 601 / 1010 = 0.595."</p>
            <p>"Now press "<em>"Always predict the majority"</em>". The model never names B any more, and accuracy "<strong>"rises"</strong>" to 1000 / 1010 = 0.990. Nothing about B improved; A simply outnumbers it a hundred to one."</p>
            <Formula tex=tex(Kind::Binary, id::F1_WEIGHTED)/>
            <p>"Weighted F1 averages the per-class F1 with each class weighted by its share of the examples, so it too follows A: 0.985 when B is ignored. Macro F1 weighs both classes the same and halves to 0.498; MCC falls to 0, saying the decisions carry no information about B. A shortcut often seen takes each class's precision to equal its recall; with real counts B's precision is 1/401 at the threshold 0.5, because 400 A samples are predicted B. Click F1 (weighted) or F1 (macro) to see every term."</p>
            <Formula tex=tex(Kind::Binary, id::F1_MACRO)/>
            <ClassificationPlayground start=classify::IMBALANCE threshold=0.5/>
        }.into_any(),
        "confidence" => view! {
            <p>"Accuracy only asks whether the top prediction was right. Log loss (cross-entropy) asks how much probability the model gave to what actually happened: the loss of one example is −ln p, where p is the probability assigned to its true class. A confident right answer costs almost nothing, a hedged one costs more, and a confident wrong answer costs a great deal."</p>
            <Formula tex=tex(Kind::Binary, id::LOG_LOSS)/>
            <p>"Because the loss is −ln p, a mean loss L corresponds to a typical probability of e^−L on the true class (a geometric mean): a loss of 2.3 means about 10 %, 4.6 about 1 %. Two models with the same accuracy can differ widely in loss. Lower loss rewards both separating the classes (discrimination) and probabilities that match how often things happen (calibration); it does not measure calibration alone."</p>
            <ConfidenceWidget/>
        }.into_any(),
        "ranking" => view! {
            <p>"Reorder and regrade a ranked list; every ranking metric follows. Start from the worked example or build your own."</p>
            <RankingPlayground grades=&SEED_004 k=5/>
        }.into_any(),
        _ => view! {
            <p>"Move scored examples and the threshold; the confusion matrix, the curves and every threshold metric follow."</p>
            <ClassificationPlayground start=classify::BALANCED threshold=0.5/>
        }.into_any(),
    }
}

/// Runs `f` on one example whose single correct answer is at `rank` (1-based)
/// in a list of `len` candidates, or missing from it (`None`).
fn one_answer<R>(rank: Option<usize>, len: usize, f: impl FnOnce(&QueryView) -> R) -> R {
    let len = len.max(rank.unwrap_or(0));
    let mut grades = vec![0; len];
    if let Some(r) = rank.filter(|&r| r >= 1) {
        grades[r - 1] = 1;
    }
    let ties = vec![false; len];
    let judged = [1];
    f(&QueryView {
        grades: &grades,
        tied_with_prev: &ties,
        judged_desc: &judged,
        average_ties: false,
    })
}

/// Per example (Acc@1, Acc@5, Acc@10, RR, nDCG@10) from the core.
fn answer_metrics(rank: Option<usize>) -> [f64; 5] {
    one_answer(rank, 20, |q| {
        [
            q.hit(Some(1), 1),
            q.hit(Some(5), 1),
            q.hit(Some(10), 1),
            q.reciprocal_rank(None, 1),
            q.ndcg(Some(10), Gain::Linear, Discount::Log2),
        ]
    })
}

#[component]
fn RanksWidget() -> impl IntoView {
    let start = vec![
        Some(1),
        Some(2),
        Some(1),
        Some(4),
        Some(1),
        Some(12),
        Some(3),
        None,
    ];
    let ranks = RwSignal::new(start.clone());
    let problem = RwSignal::new(None::<String>);
    let means = Memo::new(move |_| {
        let rows: Vec<[f64; 5]> = ranks.get().into_iter().map(answer_metrics).collect();
        let n = rows.len().max(1) as f64;
        let mut m = [0.0; 5];
        for r in &rows {
            for (a, b) in m.iter_mut().zip(r) {
                *a += b / n;
            }
        }
        (rows, m)
    });
    let fmt = |v: f64| format!("{v:.3}");
    let check = |ok: bool| if ok { "✓ holds" } else { "✗ broken" };
    view! {
        <section class="widget" id="ranks-widget">
            <div class="toy-buttons">
                <button on:click=move |_| ranks.set(start.clone())>"Start again"</button>
                <button id="ranks-all2" on:click=move |_| ranks.update(|v| v.iter_mut().for_each(|r| *r = Some(2)))>"Every answer at rank 2"</button>
                <button on:click=move |_| ranks.update(|v| v.iter_mut().for_each(|r| *r = Some(1)))>"Every answer at rank 1"</button>
            </div>
            <table class="small-table">
                <thead><tr><th scope="col">"example"</th><th scope="col">"rank of the answer (empty: missing)"</th><th scope="col">"Acc@1"</th><th scope="col">"Acc@5"</th><th scope="col">"Acc@10"</th><th scope="col">"RR"</th><th scope="col">"nDCG@10"</th></tr></thead>
                <tbody>
                    {move || means.get().0.into_iter().enumerate().map(|(i, r)| view! {
                        <tr>
                            <td>{i + 1}</td>
                            <td><input type="number" min="1" max="20" aria-label=format!("rank of example {}", i + 1) data-rank-input=i.to_string()
                                prop:value=ranks.with_untracked(|v| v.get(i).copied().flatten().map(|r| r.to_string()).unwrap_or_default())
                                on:change=move |ev| {
                                    let text = event_target_value(&ev);
                                    match rank_of(&text) {
                                        Ok(r) => {
                                            problem.set(None);
                                            ranks.update(|v| if let Some(x) = v.get_mut(i) { *x = r; });
                                        }
                                        // the rank is kept as it was, and the reason said
                                        Err(why) => problem.set(Some(format!("Example {}: {why}", i + 1))),
                                    }
                                }/></td>
                            {r.into_iter().map(|v| view! { <td class="num">{fmt(v)}</td> }).collect_view()}
                        </tr>
                    }).collect_view()}
                </tbody>
                <tfoot>
                    <tr><th scope="row" colspan="2">"mean"</th>
                        {move || { let m = means.get().1; ["acc1", "acc5", "acc10", id::MRR, "ndcg10"].into_iter().zip(m).map(|(id, v)| view! { <td class="num" data-lesson-metric=id data-value=format!("{v:?}")><strong>{fmt(v)}</strong></td> }).collect_view() }}
                    </tr>
                </tfoot>
            </table>
            {move || problem.get().map(|p| view! { <p class="warn small" id="rank-problem" role="alert">{p}</p> })}
            <ul class="checks">
                {move || { let [a1, a5, a10, mrr, _] = means.get().1; view! {
                    <li data-check="acc-order">{format!("Acc@1 ≤ Acc@5 ≤ Acc@10: {} ≤ {} ≤ {} ", fmt(a1), fmt(a5), fmt(a10))}{check(a1 <= a5 && a5 <= a10)}</li>
                    <li data-check="acc1-mrr">{format!("Acc@1 ≤ MRR ≤ 1: {} ≤ {} ≤ 1 ", fmt(a1), fmt(mrr))}{check(a1 <= mrr + 1e-12 && mrr <= 1.0)}</li>
                    <li data-check="mrr-bound">{format!("MRR ≤ (1 + Acc@1) / 2: {} ≤ {} ", fmt(mrr), fmt((1.0 + a1) / 2.0))}{check(mrr <= (1.0 + a1) / 2.0 + 1e-12)}</li>
                } }}
            </ul>
        </section>
    }
}

/// A rank typed in the one-right-answer widget: empty is a missing answer;
/// else a whole number from 1 to 20 (the lists are 20 long), or why not.
fn rank_of(text: &str) -> Result<Option<usize>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<i64>() {
        Ok(r) if (1..=20).contains(&r) => Ok(Some(r as usize)),
        Ok(r) if r > 20 => Err(format!("rank {r} is past the list's 20 places: leave it empty for an answer that is missing.")),
        Ok(r) => Err(format!("rank {r} is not a place in a list: ranks start at 1 (leave it empty for a missing answer).")),
        Err(_) => Err(format!("'{text}' is not a rank: a rank is a whole number from 1 to 20 (leave it empty for a missing answer).")),
    }
}

#[component]
fn DiscountWidget() -> impl IntoView {
    let rank = RwSignal::new(2usize);
    // (rank, RR, 1/log2(rank+1), Järvelin b = 2), every value from the core
    let row = |r: usize| {
        let (rr, ndcg) = one_answer(Some(r), r, |q| {
            (
                q.reciprocal_rank(None, 1),
                q.ndcg(None, Gain::Linear, Discount::Log2),
            )
        });
        (r, rr, ndcg, discount_at(r - 1, Discount::JarvelinB2))
    };
    let bar = |v: f64, class: &'static str| view! { <span class=format!("dbar {class}") style=format!("width:{:.0}px", v * 400.0)></span> };
    view! {
        <section class="widget" id="discount-widget">
            <table class="small-table">
                <thead><tr><th scope="col">"rank"</th><th scope="col">"RR = 1/rank"</th><th scope="col">"nDCG = 1/log₂(rank+1)"</th><th scope="col">"1/max(1, log₂ rank)"</th></tr></thead>
                <tbody>
                    {[1, 2, 3, 4, 5, 10, 100, 1000].map(|r| { let (r, rr, nd, j) = row(r); view! {
                        <tr data-discount-rank=r.to_string()><td>{r}</td><td class="num">{format!("{rr:.3}")}</td><td class="num">{format!("{nd:.3}")}</td><td class="num">{format!("{j:.3}")}</td></tr>
                    } }).collect_view()}
                </tbody>
            </table>
            <label>"the answer at rank " <input type="range" min="1" max="50" id="discount-rank" prop:value=move || rank.get().to_string()
                on:input=move |ev| rank.set(event_target_value(&ev).parse::<usize>().unwrap_or(1).clamp(1, 50))/>
                <output>{move || rank.get()}</output></label>
            {move || { let (_, rr, nd, j) = row(rank.get()); view! {
                <div class="discount-bars">
                    <div><span class="bar-label">{format!("RR {rr:.3}")}</span>{bar(rr, "rr")}</div>
                    <div><span class="bar-label">{format!("nDCG {nd:.3}")}</span>{bar(nd, id::NDCG)}</div>
                    <div><span class="bar-label">{format!("b = 2 {j:.3}")}</span>{bar(j, "jarvelin")}</div>
                </div>
            } }}
        </section>
    }
}

#[component]
fn ConfidenceWidget() -> impl IntoView {
    let p = RwSignal::new(0.5f64);
    // the loss of one positive example scored p, from the core's log loss
    let loss = |p: f64| binary::log_loss(&[true], &[p]).unwrap_or(f64::NAN);
    view! {
        <section class="widget" id="confidence-widget">
            <label>"probability given to the true class " <input type="range" min="0.001" max="1" step="0.001" id="confidence-p"
                prop:value=move || p.get().to_string()
                on:input=move |ev| p.set(event_target_value(&ev).parse::<f64>().unwrap_or(0.5).clamp(0.001, 1.0))/>
                <output>{move || format!("{:.3}", p.get())}</output></label>
            <p>"loss of this example = −ln p = "<strong id="confidence-loss" data-value=move || format!("{:?}", loss(p.get()))>{move || format!("{:.4}", loss(p.get()))}</strong></p>
            <table class="small-table">
                <thead><tr><th scope="col">"probability on the true class"</th><th scope="col">"log loss"</th></tr></thead>
                <tbody>
                    {[0.99, 0.9, 0.5, 0.1, 0.05, 0.01, 0.001].map(|q| view! {
                        <tr><td class="num">{format!("{q}")}</td><td class="num">{format!("{:.3}", loss(q))}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}
