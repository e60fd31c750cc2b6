"""Writes tests/reference/extra/recsys/: a small recommender data set as
recommenders save it, written by pandas from a seeded numpy generator, and
recsys.json, the values of Hit@k, nDCG@k, MRR and recall@k computed from it
here with numpy, independently of Rankscope.

Files (string ids: users 'user_001'.., items 'sku-0001'..):
  recs_wide.csv     user_id,rec_1,...,rec_10   (short lists end in empty cells)
  recs_items.csv    user_id,items              (the list in one cell, space separated)
  recs_long.csv     user_id,item_id,rank       (rows shuffled: the rank orders)
  heldout.csv       user_id,item_id,timestamp  (held-out interactions: the judgments)
  next_item.csv     user_id,target,pred_1,...  (each user's last held-out item as target)
  recs_judged.csv   user_id,item_id,score,relevance  (relevance only on the lists' rows)

Conventions (trec_eval's, Rankscope's defaults, docs/CONVENTIONS.md):
binary relevance (a held-out item is relevant); Hit@k = 1 if a relevant
item is in the top k; MRR = 1 / the position of the first relevant item in
the whole list (0 if none); recall@k = relevant items in the top k / all of
the user's held-out items; nDCG@k = sum over relevant items in the top k of
1/log2(position + 1), divided by the same sum over the first
min(|held-out|, k) positions (gain 1 per relevant item). Which users count:
those with held-out items (the qrels' queries); a user with held-out items
and no list scores 0 and counts; a user with a list and no held-out item is
left out.
"""
import json
import pathlib

import numpy as np
import pandas as pd

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference" / "extra" / "recsys"
SEED = 57
USERS, ITEMS, K = 50, 200, 10

rng = np.random.default_rng(SEED)
users = [f"user_{u:03d}" for u in range(1, USERS + 1)]
items = np.array([f"sku-{i:04d}" for i in range(1, ITEMS + 1)])
popularity = 1.0 / np.arange(1, ITEMS + 1) ** 0.8
popularity /= popularity.sum()

heldout = {}  # user -> list of items, in time order
lists = {}  # user -> ranked list of items
for n, u in enumerate(users):
    # 5 users with nothing held out (left out), the others 1 to 8 items
    count = 0 if n % 10 == 3 else int(rng.integers(1, 9))
    held = list(rng.choice(items, size=count, replace=False, p=popularity))
    if held:
        heldout[u] = held
    # 4 users without a list (held out items, never recommended: score 0)
    if n % 12 == 7:
        continue
    # the list: popular items, the held-out ones lifted by a noisy amount
    score = np.log(popularity) + rng.gumbel(size=ITEMS)
    lift = np.isin(items, held)
    score[lift] += rng.normal(2.0, 1.5, size=lift.sum())
    order = np.argsort(-score, kind="stable")
    length = K if n % 9 else 7  # a few short lists
    lists[u] = list(items[order[:length]])

OUT.mkdir(parents=True, exist_ok=True)

# wide: one row per user with a list, rec_1..rec_10, short lists padded with NaN
wide = pd.DataFrame(
    [[u] + l + [np.nan] * (K - len(l)) for u, l in lists.items()],
    columns=["user_id"] + [f"rec_{i}" for i in range(1, K + 1)],
)
wide.to_csv(OUT / "recs_wide.csv", index=False)
pd.DataFrame({"user_id": list(lists), "items": [" ".join(l) for l in lists.values()]}).to_csv(
    OUT / "recs_items.csv", index=False
)
long = pd.DataFrame(
    [(u, item, r + 1) for u, l in lists.items() for r, item in enumerate(l)],
    columns=["user_id", "item_id", "rank"],
)
long.sample(frac=1.0, random_state=SEED).to_csv(OUT / "recs_long.csv", index=False)
held_rows = [(u, item, 1_700_000_000 + 3600 * t) for u, h in heldout.items() for t, item in enumerate(h)]
held = pd.DataFrame(held_rows, columns=["user_id", "item_id", "timestamp"])
held.sample(frac=1.0, random_state=SEED + 1).to_csv(OUT / "heldout.csv", index=False)
# next-item: each user with held-out items, their last one the target
next_rows = [[u, h[-1]] + (lists.get(u, []) + [np.nan] * K)[:K] for u, h in heldout.items()]
pd.DataFrame(next_rows, columns=["user_id", "target"] + [f"pred_{i}" for i in range(1, K + 1)]).to_csv(
    OUT / "next_item.csv", index=False
)
# relevance given only on the lists' own rows (the issue's 'judged' file)
judged = long.copy()
judged["score"] = 1.0 / judged["rank"]
judged["relevance"] = [int(i in heldout.get(u, [])) for u, i in zip(judged.user_id, judged.item_id)]
judged[["user_id", "item_id", "score", "relevance"]].to_csv(OUT / "recs_judged.csv", index=False)


def metrics(relevant, lists, ks=(5, 10)):
    """Means over the users of `relevant` (user -> set of relevant items)."""
    counted = sorted(relevant)
    depth = max(len(l) for l in lists.values())
    # hits[u, i]: the item at position i + 1 of u's list is relevant
    hits = np.zeros((len(counted), depth))
    for row, u in enumerate(counted):
        for i, item in enumerate(lists.get(u, [])):
            hits[row, i] = item in relevant[u]
    n_rel = np.array([len(relevant[u]) for u in counted], dtype=float)
    positions = np.arange(1, depth + 1)
    discount = 1.0 / np.log2(positions + 1)
    first = np.where(hits.any(axis=1), hits.argmax(axis=1) + 1, 0)
    out = {"mrr": float(np.mean(np.where(first > 0, 1.0 / np.maximum(first, 1), 0.0)))}

    def ratio(a, b):  # a user with nothing relevant scores 0 (and counts)
        return np.divide(a, b, out=np.zeros_like(a), where=b > 0)

    for k in ks:
        top = hits[:, :k]
        ideal = np.array([discount[: min(int(r), k)].sum() for r in n_rel])
        out[f"hit_rate@{k}"] = float(np.mean(top.any(axis=1)))
        out[f"recall@{k}"] = float(np.mean(ratio(top.sum(axis=1), n_rel)))
        out[f"ndcg@{k}"] = float(np.mean(ratio((top * discount[:k]).sum(axis=1), ideal)))
    return out


heldout_sets = {u: set(h) for u, h in heldout.items()}
reference = {
    "seed": SEED,
    "numpy": np.__version__,
    "pandas": pd.__version__,
    "users": USERS,
    "items": ITEMS,
    "users_with_lists": len(lists),
    "users_counted": len(heldout),
    "counted": "users with held-out items (the qrels' queries); a user with held-out items and no list scores 0; a user with a list and no held-out item is left out",
    # the lists against every held-out item (recs_wide, recs_items, recs_long with heldout.csv)
    "heldout": metrics(heldout_sets, lists),
    # the same lists read the wrong way round (a rank column read as a score)
    "reversed": metrics(heldout_sets, {u: l[::-1] for u, l in lists.items()}),
    # next_item.csv: the last held-out item alone is relevant
    "next_item": metrics({u: {h[-1]} for u, h in heldout.items()}, lists),
    # recs_judged.csv: only the judged rows of the lists are known, so the
    # relevant set is what the lists hold (users without a hit have none
    # relevant and still count, as the CSV's queries)
    "judged_in_lists": metrics(
        {u: heldout_sets.get(u, set()) & set(l) for u, l in lists.items()},
        lists,
    ),
}
(OUT / "recsys.json").write_text(json.dumps(reference, indent=1) + "\n")
