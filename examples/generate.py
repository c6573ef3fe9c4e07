#!/usr/bin/env python3
"""Generate the example datasets in ``examples/`` (deterministic: same bytes on every run).

    python examples/generate.py            # rewrites the files next to this script

Writes:

* ``label-studio/export.json``: a Label Studio full JSON export (list of tasks) of a
  product-review project (project 7), 250 tasks, annotators 2, 3, 4, 5, two labeling rounds.
* ``label-studio/export-completed-by-object.json``: the first 30 of those tasks as Label Studio
  serializes them with ``annotations__completed_by``: ``completed_by`` is a user object.
* ``label-studio/label_config.xml``: the project's labeling config.
* ``prodigy/binary.jsonl``: Prodigy ``db-out`` of a binary ``classification`` dataset (INSULT).
* ``prodigy/choice.jsonl``: Prodigy ``db-out`` of a single-choice ``choice`` dataset.

Everything is synthetic: the texts come from templates, the people are invented, the e-mail
addresses are on example.com. Only the standard library is used; every random draw comes from a
``random.Random`` seeded with a fixed string, and no clock is read.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = "iaa-gate-examples-v1"

# --------------------------------------------------------------------------------------------
# Review texts
# --------------------------------------------------------------------------------------------

PRODUCTS = [
    ("Aurora X2 Wireless Earbuds", "earbuds"),
    ("Brewline Burr Coffee Grinder", "grinder"),
    ("Kestrel 30L Hiking Backpack", "backpack"),
    ("Lumo Adjustable Desk Lamp", "lamp"),
    ("Tidal Stainless Water Bottle", "bottle"),
    ("Northfield Cork Yoga Mat", "mat"),
    ("Quill 75% Mechanical Keyboard", "keyboard"),
    ("Harbor 10in Cast Iron Skillet", "skillet"),
    ("Nimbus Memory Foam Pillow", "pillow"),
    ("Volt 20000mAh Power Bank", "power bank"),
    ("Sprout Kids Lunch Box", "lunch box"),
    ("Ember Electric Kettle 1.7L", "kettle"),
    ("Pixel Pal Phone Case", "case"),
    ("Cirrus HEPA Air Purifier", "purifier"),
    ("Glide Cordless Stick Vacuum", "vacuum"),
    ("Orbit Smart Plug (2-pack)", "smart plug"),
    ("Cedar & Sage Soy Candle", "candle"),
    ("Atlas Standing Desk Converter", "desk converter"),
    ("Wren Video Baby Monitor", "baby monitor"),
    ("Fjord Merino Wool Blanket", "blanket"),
    ("Sol Portable Bluetooth Speaker", "speaker"),
    ("Marlow 8in Chef's Knife", "knife"),
    ("Beacon Rechargeable Headlamp", "headlamp"),
    ("Drift Insulated Travel Mug", "travel mug"),
]

TOPICS = ["Price", "Quality", "Shipping", "Support", "Packaging"]
TOPIC_WEIGHTS = [0.20, 0.36, 0.20, 0.11, 0.13]

SENTENCES = {
    "Price": {
        "pos": [
            "Great value for the money.",
            "Cheaper than the {item} I had before and just as good.",
            "At this price it's a steal.",
            "Got it on sale and it was worth every penny.",
            "Honestly surprised how much you get for the price.",
            "Half the price of the big brands and I can't tell the difference.",
        ],
        "neg": [
            "Way overpriced for what you get.",
            "Not worth the price, you can find better for half.",
            "The price went up right after I ordered, which was annoying.",
            "Too expensive for a {item} this basic.",
            "For this much money I expected a lot more.",
        ],
        "neu": [
            "Price is about what you'd expect.",
            "It was on sale when I bought it.",
            "Costs about the same as other brands.",
            "Paid full price.",
        ],
    },
    "Quality": {
        "pos": [
            "The {item} feels solid and well made.",
            "Build quality is excellent.",
            "Still works perfectly after three weeks of daily use.",
            "Materials feel premium.",
            "Does exactly what it should, and does it well.",
            "Sturdier than I expected.",
        ],
        "neg": [
            "The {item} stopped working after two weeks.",
            "Feels cheap and flimsy.",
            "One part snapped off on the second day.",
            "Quality is really poor, it is already falling apart.",
            "It broke the first time I used it.",
            "Mine had a defect out of the box.",
        ],
        "neu": [
            "Works as described.",
            "Quality is average.",
            "It does the job.",
            "Nothing special about the build, but nothing wrong either.",
            "A standard {item}, as expected.",
        ],
    },
    "Shipping": {
        "pos": [
            "Arrived two days early.",
            "Shipping was fast.",
            "Delivered the next day, no complaints.",
            "Fast delivery and the tracking was accurate.",
        ],
        "neg": [
            "Shipping took almost three weeks.",
            "Arrived a week late with no updates.",
            "The courier left it out in the rain.",
            "Tracking said delivered but it showed up four days later.",
        ],
        "neu": [
            "Arrived on the estimated date.",
            "Delivery took about a week.",
            "Came by regular post.",
        ],
    },
    "Support": {
        "pos": [
            "Customer service replaced it without any hassle.",
            "Support answered my question within an hour.",
            "The seller was very helpful when I had a question about setup.",
            "The seller sent a replacement part for free.",
        ],
        "neg": [
            "Customer support never replied to my emails.",
            "Support was useless and kept sending copy-paste answers.",
            "They refused a refund even though it was defective.",
            "Had to contact support three times to get anywhere.",
        ],
        "neu": [
            "I contacted support once about setup and got an answer.",
            "Haven't needed customer service yet.",
            "Support asked for photos before processing the return.",
        ],
    },
    "Packaging": {
        "pos": [
            "Nicely packaged, would make a good gift.",
            "Packaging was minimal and recyclable, which I appreciate.",
            "Well protected in the box, nothing damaged.",
        ],
        "neg": [
            "The box was crushed and the {item} was scratched.",
            "Way too much plastic packaging.",
            "Packaging was damaged and a piece was missing.",
            "Came in a bag with no padding at all.",
        ],
        "neu": [
            "Came in a plain cardboard box.",
            "Standard packaging.",
            "Packaging was fine.",
        ],
    },
}

OPENERS = {
    "pos": [
        "Love this {item}!",
        "Really happy with this purchase.",
        "Five stars.",
        "Exactly what I needed.",
        "Bought this for my partner and they love it.",
        "",
        "",
    ],
    "neg": [
        "Very disappointed.",
        "Do not buy this {item}.",
        "Returning it.",
        "What a waste of money.",
        "One star.",
        "",
        "",
    ],
    "neu": ["Bought this as a replacement.", "Used it for a couple of weeks now.", "", "", ""],
    "mix": ["Mixed feelings about this one.", "Some good, some bad.", "", ""],
}
CLOSERS = {
    "pos": ["Would buy again.", "Highly recommend.", "Already ordered a second one.", "", ""],
    "neg": ["Would not recommend.", "Avoid.", "Asking for a refund.", "", ""],
    "neu": ["It's fine.", "Nothing more to say.", "Does what it says.", "", ""],
    "mix": [
        "Not sure I'd buy it again.",
        "Three stars.",
        "Could be great if they fixed that.",
        "",
        "",
    ],
}

SENTIMENTS = ["Positive", "Negative", "Neutral", "Mixed"]
SENTIMENT_PRIOR = [0.40, 0.27, 0.16, 0.17]
POLARITY = {"Positive": "pos", "Negative": "neg", "Neutral": "neu", "Mixed": "mix"}


def _lcfirst(s: str) -> str:
    if s.startswith(("I ", "I'")) or not s:
        return s
    return s[0].lower() + s[1:]


def make_review(rng: random.Random, sentiment: str) -> dict:
    """A review text with its true sentiment, topics and a latent helpfulness (1..5, float)."""
    product, item = rng.choice(PRODUCTS)
    n_topics = rng.choices([1, 2, 3], weights=[0.45, 0.40, 0.15])[0]
    if sentiment == "Mixed":
        n_topics = max(n_topics, 2)
    topics: list[str] = []
    while len(topics) < n_topics:
        t = rng.choices(TOPICS, weights=TOPIC_WEIGHTS)[0]
        if t not in topics:
            topics.append(t)
    pol = POLARITY[sentiment]
    body: list[str] = []
    if pol == "mix":
        good = rng.randrange(len(topics))
        for i, t in enumerate(topics):
            if i == good:
                body.append(rng.choice(SENTENCES[t]["pos"]))
            else:
                s = rng.choice(SENTENCES[t]["neg"])
                # The first complaint after the praise may open with a connective.
                link = rng.choice(["But ", "That said, ", "However, ", ""]) if i == good + 1 else ""
                body.append(link + _lcfirst(s) if link else s)
    else:
        for t in topics:
            body.append(rng.choice(SENTENCES[t][pol]))
    parts = [rng.choice(OPENERS[pol]), *body, rng.choice(CLOSERS[pol])]
    text = " ".join(p for p in parts if p).replace("{item}", item)
    style = rng.random()
    if style < 0.06:
        text = text.lower()
    elif style < 0.09:
        text = text.rstrip(".!") + "!!"
    # Longer, more specific reviews are more helpful.
    helpful = 1.2 + 0.9 * len(body) + (0.4 if len(parts) - parts.count("") > len(body) else 0.0)
    helpful += rng.gauss(0.0, 0.9)
    return {
        "text": text,
        "product": product,
        "sentiment": sentiment,
        "topics": [t for t in TOPICS if t in topics],
        "helpful": min(5.0, max(1.0, helpful)),
    }


def unique_reviews(rng: random.Random, n: int) -> list[dict]:
    out: list[dict] = []
    seen: set[str] = set()
    while len(out) < n:
        sentiment = rng.choices(SENTIMENTS, weights=SENTIMENT_PRIOR)[0]
        r = make_review(rng, sentiment)
        if r["text"] not in seen:
            seen.add(r["text"])
            out.append(r)
    return out


# --------------------------------------------------------------------------------------------
# Label Studio
# --------------------------------------------------------------------------------------------

PROJECT = 7
FIRST_TASK_ID = 1631
FIRST_ANNOTATION_ID = 4812
FIRST_PREDICTION_ID = 208
N_TASKS = 250  # 300 tasks would make export.json ~1.2 MB with indent=2; 250 keep it ~1 MB

USERS = {
    2: {"id": 2, "email": "ana@example.com", "first_name": "Ana", "last_name": "Pereira"},
    3: {"id": 3, "email": "ben@example.com", "first_name": "Ben", "last_name": "Okafor"},
    4: {"id": 4, "email": "chen@example.com", "first_name": "Chen", "last_name": "Wei"},
    5: {"id": 5, "email": "dmitri@example.com", "first_name": "Dmitri", "last_name": "Ivanov"},
}

# Per annotator: sentiment error rate, chance of a random sentiment (the outlier), helpfulness
# bias and spread, topic recall and false-positive rate. Tuned so that, measured with the
# krippendorff package, sentiment (nominal) alpha is ~0.76 and helpfulness (ordinal) ~0.82 over
# the whole export (see README.md). Changing any draw changes the figures: re-measure.
ANNOTATORS = {
    2: {"err": 0.025, "random": 0.00, "bias": 0.0, "sd": 0.25, "recall": 0.94, "fp": 0.02},
    3: {"err": 0.040, "random": 0.00, "bias": -0.2, "sd": 0.30, "recall": 0.92, "fp": 0.02},
    4: {"err": 0.035, "random": 0.00, "bias": 0.15, "sd": 0.30, "recall": 0.92, "fp": 0.03},
    5: {"err": 0.040, "random": 0.30, "bias": 0.1, "sd": 0.45, "recall": 0.84, "fp": 0.05},
}

# Where a wrong sentiment goes: Neutral/Mixed are confused often, Positive/Negative rarely.
CONFUSION = {
    "Positive": {"Mixed": 0.55, "Neutral": 0.40, "Negative": 0.05},
    "Negative": {"Mixed": 0.55, "Neutral": 0.40, "Positive": 0.05},
    "Neutral": {"Mixed": 0.60, "Positive": 0.25, "Negative": 0.15},
    "Mixed": {"Neutral": 0.60, "Positive": 0.20, "Negative": 0.20},
}

CLASS_DIFFICULTY = {"Positive": 0.7, "Negative": 0.7, "Neutral": 1.8, "Mixed": 1.8}

UTC = timezone.utc
ROUNDS = [
    # (first day, import time of the round's tasks)
    (datetime(2026, 10, 5, tzinfo=UTC), datetime(2026, 10, 2, 14, 3, 11, tzinfo=UTC)),
    (datetime(2026, 11, 2, tzinfo=UTC), datetime(2026, 10, 30, 10, 21, 47, tzinfo=UTC)),
]
ROUND_DAYS = 5
FILE_UPLOADS = ["8f3c1d2e-reviews_batch_oct.json", "b71e09a4-reviews_batch_nov.json"]

NOTES = [
    "Sarcastic? Read it twice.",
    "Review seems to be about a different product.",
    "Mentions a gift, not sure who the reviewer is.",
    "Hard to tell if this is neutral or mixed.",
    "Possible duplicate of an earlier review.",
    "Only talks about delivery, nothing about the product itself.",
    "Rating in the text does not match the tone.",
    "Partly in another language in the original? Looks truncated.",
    "Not sure 'Support' applies, it's the seller not the brand.",
    "Very short, helpfulness is a guess.",
]

RID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def iso(dt: datetime) -> str:
    """Label Studio's timestamp format: microseconds and a Z."""
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rid(rng: random.Random) -> str:
    return "".join(rng.choice(RID_ALPHABET) for _ in range(10))


def work_time(rng: random.Random, rnd: int) -> datetime:
    """A moment during working hours (08:30-18:00 UTC) of one of the round's five days."""
    day0 = ROUNDS[rnd][0]
    day = rng.randrange(ROUND_DAYS)
    seconds = rng.randrange(int(8.5 * 3600), 18 * 3600)
    return day0 + timedelta(days=day, seconds=seconds, microseconds=rng.randrange(1_000_000))


def round_end(rnd: int) -> datetime:
    return ROUNDS[rnd][0] + timedelta(days=ROUND_DAYS - 1, hours=19)


def label_sentiment(rng: random.Random, a: dict, truth: str, hard: bool) -> str:
    if rng.random() < a["random"]:
        return rng.choice(SENTIMENTS)
    # Neutral and Mixed reviews are the hard ones.
    err = a["err"] * (2.2 if hard else 1.0) * CLASS_DIFFICULTY[truth]
    if rng.random() >= err:
        return truth
    row = CONFUSION[truth]
    return rng.choices(list(row), weights=list(row.values()))[0]


def label_topics(rng: random.Random, a: dict, truth: list[str]) -> list[str]:
    chosen = [t for t in TOPICS if rng.random() < (a["recall"] if t in truth else a["fp"])]
    if not chosen:
        chosen = [rng.choice(truth)]
    return chosen


def label_rating(rng: random.Random, a: dict, helpful: float) -> int:
    return int(min(5, max(1, round(helpful + a["bias"] + rng.gauss(0.0, a["sd"])))))


def result_items(
    rng: random.Random, sentiment: str, topics: list[str], rating: int | None, note: str | None
) -> list[dict]:
    def item(from_name: str, kind: str, value: dict) -> dict:
        return {
            "value": value,
            "id": rid(rng),
            "from_name": from_name,
            "to_name": "text",
            "type": kind,
            "origin": "manual",
        }

    out = [
        item("sentiment", "choices", {"choices": [sentiment]}),
        item("topics", "choices", {"choices": topics}),
    ]
    if rating is not None:
        out.append(item("helpfulness", "rating", {"rating": rating}))
    if note is not None:
        out.append(item("notes", "textarea", {"text": [note]}))
    return out


def build_label_studio() -> tuple[list[dict], dict]:
    rng = random.Random(f"{SEED}/label-studio")
    reviews = unique_reviews(rng, N_TASKS)

    # Tasks left without any annotation (exported because of download_all_tasks=true).
    empty = {41, 97, 168, 203, 236}
    # Per task, how many annotators: 3 mostly, some 2 or 4.
    counts = {}
    for i in range(1, N_TASKS + 1):
        counts[i] = 0 if i in empty else rng.choices([2, 3, 4], weights=[0.08, 0.86, 0.06])[0]

    anns: list[dict] = []  # annotation drafts, ids assigned later in creation order
    stats = {"cancelled": 0, "superseded": 0, "ground_truth": 0, "no_rating": 0, "notes": 0}
    for i in range(1, N_TASKS + 1):
        rnd = 0 if i <= N_TASKS // 2 else 1
        r = reviews[i - 1]
        hard = rng.random() < 0.22
        for user in sorted(rng.sample(sorted(USERS), counts[i])):
            a = ANNOTATORS[user]
            created = work_time(rng, rnd)
            cancelled = rng.random() < 0.03
            d = {
                "inner": i,
                "rnd": rnd,
                "user": user,
                "created": created,
                "cancelled": cancelled,
                "ground_truth": False,
            }
            if cancelled:
                d["lead_time"] = round(rng.lognormvariate(math.log(6.0), 0.5), 3)
                d["labels"] = None
                stats["cancelled"] += 1
            else:
                d["lead_time"] = round(rng.lognormvariate(math.log(24.0), 0.55), 3)
                rating = label_rating(rng, a, r["helpful"])
                if rng.random() < 0.015:
                    rating = None  # annotator forgot the rating: no helpfulness result at all
                    stats["no_rating"] += 1
                note = None
                if rng.random() < (0.08 if user == 2 else 0.03):
                    note = rng.choice(NOTES)
                    stats["notes"] += 1
                d["labels"] = (
                    label_sentiment(rng, a, r["sentiment"], hard),
                    label_topics(rng, a, r["topics"]),
                    rating,
                    note,
                )
            d["updated"] = created + timedelta(milliseconds=rng.randrange(5, 900))
            anns.append(d)

    # Same annotator twice on one task: an earlier pass is superseded by the later updated_at.
    # Most re-annotations are newer annotations; on two tasks the *older* annotation (lower id)
    # was edited afterwards, so it is the one that wins; on one task the annotator first
    # skipped the task and came back to label it.
    candidates = [
        d
        for d in anns
        if not d["cancelled"]
        and d["created"] > ROUNDS[d["rnd"]][0] + timedelta(hours=12)
        and d["created"] < round_end(d["rnd"]) - timedelta(days=1)
    ]
    picks = rng.sample(candidates, 8)
    for k, d in enumerate(sorted(picks, key=lambda x: (x["inner"], x["user"]))):
        r = reviews[d["inner"] - 1]
        a = ANNOTATORS[d["user"]]
        first_sent = rng.choice([s for s in SENTIMENTS if s != d["labels"][0]])
        sup = {
            "inner": d["inner"],
            "rnd": d["rnd"],
            "user": d["user"],
            "ground_truth": False,
            "lead_time": round(rng.lognormvariate(math.log(20.0), 0.5), 3),
        }
        if k == 7:
            sup.update(cancelled=True, labels=None)
            stats["cancelled"] += 1
        else:
            sup.update(
                cancelled=False,
                labels=(
                    first_sent,
                    label_topics(rng, a, r["topics"]),
                    label_rating(rng, a, r["helpful"]),
                    None,
                ),
            )
        if k in (2, 5):
            # The winner was created first and edited after the second annotation was made.
            sup["created"] = d["created"] + timedelta(minutes=rng.randrange(20, 90))
            sup["updated"] = sup["created"] + timedelta(milliseconds=rng.randrange(5, 900))
            d["updated"] = sup["updated"] + timedelta(
                hours=rng.randrange(1, 4), seconds=rng.randrange(3600)
            )
            d["edited"] = True
        else:
            # An earlier pass, at some working hour before the second one.
            sup["created"] = work_time(rng, d["rnd"])
            while sup["created"] > d["created"] - timedelta(minutes=10):
                sup["created"] = work_time(rng, d["rnd"])
            sup["updated"] = sup["created"] + timedelta(milliseconds=rng.randrange(5, 900))
        assert sup["updated"] < d["updated"] <= round_end(d["rnd"])
        sup["superseded"] = True
        anns.append(sup)
        stats["superseded"] += 1

    # A few annotations edited later on (updated_at hours after created_at).
    for d in rng.sample([d for d in anns if not d.get("superseded") and not d.get("edited")], 12):
        later = d["updated"] + timedelta(hours=rng.randrange(1, 20), seconds=rng.randrange(3600))
        if later <= round_end(d["rnd"]):
            d["updated"] = later

    # A reviewer marked a handful of Ana's round-1 annotations that match the truth as ground truth.
    gt_pool = [
        d
        for d in anns
        if d["user"] == 2
        and d["rnd"] == 0
        and not d["cancelled"]
        and not d.get("superseded")
        and d["labels"][0] == reviews[d["inner"] - 1]["sentiment"]
    ]
    for d in rng.sample(gt_pool, 5):
        d["ground_truth"] = True
        stats["ground_truth"] += 1

    # Annotation ids follow creation order across the whole project.
    anns.sort(key=lambda d: d["created"])
    for n, d in enumerate(anns):
        d["id"] = FIRST_ANNOTATION_ID + n

    by_task: dict[int, list[dict]] = {i: [] for i in range(1, N_TASKS + 1)}
    for d in anns:
        by_task[d["inner"]].append(d)

    # A few tasks carry a model prediction (pre-annotation), which is not an annotation.
    predicted = sorted(rng.sample(range(1, N_TASKS + 1), 12))
    pred_id = FIRST_PREDICTION_ID

    tasks = []
    for i in range(1, N_TASKS + 1):
        rnd = 0 if i <= N_TASKS // 2 else 1
        task_id = FIRST_TASK_ID + i - 1
        r = reviews[i - 1]
        imported = ROUNDS[rnd][1] + timedelta(microseconds=rng.randrange(1_000_000) + 1000 * i)
        annotations = []
        for d in sorted(by_task[i], key=lambda x: x["id"]):
            if d["labels"] is None:
                result: list[dict] = []
            else:
                result = result_items(rng, *d["labels"])
            # Trimmed to keep the file small: a real export also carries draft_created_at,
            # prediction, unique_id, import_id, last_action, bulk_created, project, updated_by,
            # parent_prediction, parent_annotation and last_created_by.
            annotations.append(
                {
                    "id": d["id"],
                    "completed_by": d["user"],
                    "result": result,
                    "was_cancelled": d["cancelled"],
                    "ground_truth": d["ground_truth"],
                    "created_at": iso(d["created"]),
                    "updated_at": iso(d["updated"]),
                    "lead_time": d["lead_time"],
                    "result_count": 0,
                    "task": task_id,
                }
            )
        predictions = []
        if i in predicted:
            score = round(rng.uniform(0.55, 0.98), 4)
            truth = r["sentiment"]
            wrong = [s for s in SENTIMENTS if s != truth]
            guess = truth if rng.random() < 0.7 else rng.choice(wrong)
            pred_time = imported + timedelta(minutes=7, microseconds=rng.randrange(1_000_000))
            predictions.append(
                {
                    "id": pred_id,
                    "result": [
                        {
                            "id": rid(rng),
                            "from_name": "sentiment",
                            "to_name": "text",
                            "type": "choices",
                            "value": {"choices": [guess]},
                        }
                    ],
                    "model_version": "distilbert-reviews-2026-09",
                    "created_ago": "1 month",
                    "score": score,
                    "cluster": None,
                    "neighbors": None,
                    "mislabeling": 0.0,
                    "created_at": iso(pred_time),
                    "updated_at": iso(pred_time),
                    "model": None,
                    "model_run": None,
                    "task": task_id,
                    "project": PROJECT,
                }
            )
            pred_id += 1
        updated = max([imported, *(d["updated"] for d in by_task[i])])
        if predictions:
            updated = max(updated, pred_time)
        last = max(by_task[i], key=lambda x: x["updated"]) if by_task[i] else None
        tasks.append(
            {
                "id": task_id,
                "annotations": annotations,
                "file_upload": FILE_UPLOADS[rnd],
                "drafts": [],
                "predictions": predictions,
                "data": {"text": r["text"], "product": r["product"]},
                "meta": {},
                "created_at": iso(imported),
                "updated_at": iso(updated),
                "inner_id": i,
                "total_annotations": sum(not d["cancelled"] for d in by_task[i]),
                "cancelled_annotations": sum(d["cancelled"] for d in by_task[i]),
                "total_predictions": len(predictions),
                "project": PROJECT,
                "updated_by": last["user"] if last else None,
            }
        )
    stats["annotations"] = len(anns)
    stats["predictions"] = len(predicted)
    return tasks, stats


def with_user_objects(tasks: list[dict]) -> list[dict]:
    """The same tasks as exported with ``annotations__completed_by``: user objects."""
    out = json.loads(json.dumps(tasks))
    for t in out:
        for a in t["annotations"]:
            a["completed_by"] = dict(USERS[a["completed_by"]])
    return out


LABEL_CONFIG = """\
<View>
  <Header value="Read the review, then label it"/>
  <Text name="text" value="$text"/>
  <Header value="Overall sentiment"/>
  <Choices name="sentiment" toName="text" choice="single" showInline="true" required="true">
    <Choice value="Positive"/>
    <Choice value="Negative"/>
    <Choice value="Neutral"/>
    <Choice value="Mixed"/>
  </Choices>
  <Header value="Topics mentioned"/>
  <Choices name="topics" toName="text" choice="multiple" showInline="true">
    <Choice value="Price"/>
    <Choice value="Quality"/>
    <Choice value="Shipping"/>
    <Choice value="Support"/>
    <Choice value="Packaging"/>
  </Choices>
  <Header value="How helpful is this review to other shoppers?"/>
  <Rating name="helpfulness" toName="text" maxRating="5"/>
  <TextArea name="notes" toName="text" placeholder="Anything unclear? (optional)" rows="2"/>
</View>
"""

# --------------------------------------------------------------------------------------------
# Prodigy
# --------------------------------------------------------------------------------------------

PRODIGY_ANNOTATORS = ["alex", "bea", "chris"]

INSULTS = [
    "The seller is a complete idiot.",
    "Whoever designed this {item} is a moron.",
    "Support staff are clowns, every single one of them.",
    "Only an idiot would pay for this junk.",
    "You people are pathetic, fix your {item}.",
    "The guy on the phone was a rude, lazy jerk.",
    "The owner of this shop is a clueless fool.",
    "Customer service is run by brainless muppets.",
]
BORDERLINE = [
    "Support was about as useful as a chocolate teapot.",
    "Are the designers even awake?",
    "Whoever approved this {item} should be embarrassed.",
    "Genius idea to put the button where you can't reach it. Brilliant.",
    "Did anyone at this company even test the {item}?",
    "The people who wrote the manual clearly never used the {item}.",
]
SOURCES = ["storefront", "marketplace", "app_store"]


def hash32(*parts: object) -> int:
    """A signed 32-bit integer, like Prodigy's input and task hashes."""
    digest = hashlib.sha1("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big", signed=True)


def _prodigy_times(rng: random.Random, start: datetime, n: int) -> list[int]:
    """n increasing unix timestamps over three working days, one session per day."""
    per_day = [n // 3 + (1 if k < n % 3 else 0) for k in range(3)]
    out: list[int] = []
    for day, m in enumerate(per_day):
        t = start + timedelta(days=day, hours=rng.uniform(8.5, 10.5))
        for _ in range(m):
            t += timedelta(seconds=rng.lognormvariate(math.log(22.0), 0.6))
            out.append(int(t.timestamp()))
    return out


def build_prodigy_binary() -> list[dict]:
    rng = random.Random(f"{SEED}/prodigy-binary")
    dataset = "reviews"
    examples = []
    seen: set[str] = set()
    while len(examples) < 200:
        _product, item = rng.choice(PRODUCTS)
        kind = rng.choices(["insult", "borderline", "clean"], weights=[0.27, 0.12, 0.61])[0]
        # A plain complaint, optionally followed by the sentence the label is about.
        context_topic, core_topic = rng.sample(TOPICS, 2)
        context = rng.choice(SENTENCES[context_topic]["neg"])
        if kind == "insult":
            core = rng.choice(INSULTS)
        elif kind == "borderline":
            core = rng.choice(BORDERLINE)
        else:
            core = rng.choice(SENTENCES[core_topic]["neg"])
        text = (f"{context} {core}" if rng.random() < 0.6 else core).replace("{item}", item)
        if text in seen or context == core:
            continue
        seen.add(text)
        examples.append({"text": text, "kind": kind, "source": rng.choice(SOURCES)})

    accept_p = {"insult": 0.94, "borderline": 0.50, "clean": 0.03}
    skill = {"alex": 1.0, "bea": 0.9, "chris": 1.3}  # chris flags more readily
    lines = []
    start = datetime(2026, 11, 10, tzinfo=timezone.utc)
    for name in PRODIGY_ANNOTATORS:
        order = list(range(len(examples)))
        rng.shuffle(order)
        order = order[: len(order) - (0 if name != "bea" else 6)]  # bea did not finish
        times = _prodigy_times(rng, start, len(order))
        for idx, ts in zip(order, times, strict=True):
            ex = examples[idx]
            p = min(0.98, accept_p[ex["kind"]] * skill[name])
            if rng.random() < 0.02:
                answer = "ignore"
            elif rng.random() < p:
                answer = "accept"
            else:
                answer = "reject"
            session = f"{dataset}-{name}"
            line = {
                "text": ex["text"],
                "meta": {"source": ex["source"]},
                "_input_hash": hash32("input", ex["text"]),
                "_task_hash": hash32("task", ex["text"], "INSULT"),
                "label": "INSULT",
                "_view_id": "classification",
                "answer": answer,
                "_timestamp": ts,
                "_annotator_id": session,
                "_session_id": session,
            }
            lines.append(line)
    lines.sort(key=lambda x: (x["_timestamp"], x["_session_id"]))
    # chris's first few answers came from an older Prodigy that did not write _annotator_id.
    n = 0
    for line in lines:
        if line["_session_id"] == "reviews-chris" and n < 9:
            del line["_annotator_id"]
            n += 1
    return lines


def build_prodigy_choice() -> list[dict]:
    rng = random.Random(f"{SEED}/prodigy-choice")
    dataset = "sentiment"
    options = [
        {"id": "POS", "text": "positive"},
        {"id": "NEG", "text": "negative"},
        {"id": "NEU", "text": "neutral"},
    ]
    reviews = unique_reviews(rng, 150)
    truth_map = {"Positive": "POS", "Negative": "NEG", "Neutral": "NEU"}
    confusion = {
        "POS": {"NEU": 0.85, "NEG": 0.15},
        "NEG": {"NEU": 0.85, "POS": 0.15},
        "NEU": {"POS": 0.5, "NEG": 0.5},
    }
    err = {"alex": 0.04, "bea": 0.05, "chris": 0.07}
    lines = []
    start = datetime(2026, 11, 16, tzinfo=timezone.utc)
    for name in PRODIGY_ANNOTATORS:
        order = list(range(len(reviews)))
        rng.shuffle(order)
        times = _prodigy_times(rng, start, len(order))
        for idx, ts in zip(order, times, strict=True):
            r = reviews[idx]
            if r["sentiment"] == "Mixed":
                # No "mixed" option: annotators split between the sides and neutral.
                label = rng.choices(["POS", "NEG", "NEU"], weights=[0.3, 0.35, 0.35])[0]
            else:
                label = truth_map[r["sentiment"]]
                if rng.random() < err[name]:
                    row = confusion[label]
                    label = rng.choices(list(row), weights=list(row.values()))[0]
            u = rng.random()
            if u < 0.015:
                answer, accept = "ignore", []
            elif u < 0.025:
                answer, accept = "accept", []  # accepted without picking an option
            else:
                answer, accept = "accept", [label]
            session = f"{dataset}-{name}"
            lines.append(
                {
                    "text": r["text"],
                    "meta": {"source": rng.choice(SOURCES), "product": r["product"]},
                    "_input_hash": hash32("input", r["text"]),
                    "_task_hash": hash32("task", r["text"], "POS|NEG|NEU"),
                    "options": options,
                    "_view_id": "choice",
                    "config": {"choice_style": "single"},
                    "accept": accept,
                    "answer": answer,
                    "_timestamp": ts,
                    "_annotator_id": session,
                    "_session_id": session,
                }
            )
    lines.sort(key=lambda x: (x["_timestamp"], x["_session_id"]))
    return lines


# --------------------------------------------------------------------------------------------
# Region examples: NER with relations and a per-entity choice, image boxes, Prodigy ner_manual
# --------------------------------------------------------------------------------------------

PEOPLE = [
    "Ana Pereira",
    "Ben Okafor",
    "Chen Wei",
    "Dmitri Ivanov",
    "Ewa Nowak",
    "Farid Haddad",
    "Grace Lin",
    "Hugo Martin",
    "Ines Costa",
    "Jonas Berg",
    "Kofi Mensah",
    "Lena Vogel",
]
ORGS = [
    "Northwind Labs",
    "Harbor Bank",
    "Cedar Health",
    "Atlas Freight",
    "Quill Press",
    "Lumo Energy",
    "Fjord Foods",
    "Orbit Telecom",
]
PLACES = ["Lisbon", "Lagos", "Shenzhen", "Tallinn", "Montreal", "Porto", "Nairobi", "Oslo"]
NER_TEMPLATES = [
    "{PER} joined {ORG} in {LOC} last spring.",
    "{PER}, who works for {ORG}, spoke at the {LOC} meetup.",
    "After ten years at {ORG}, {PER} moved to {LOC}.",
    "{ORG} opened an office in {LOC}; {PER} leads it.",
    "The {LOC} team of {ORG} hired {PER} as head of design.",
    "{PER} met the board of {ORG} on Tuesday.",
    "Rain delayed every train to {LOC} this morning.",
    "{PER} and {PER2} left {ORG} to start a company in {LOC}.",
]
NER_LABELS = ["PER", "ORG", "LOC"]
NER_CONFIG = """<View>
  <Labels name="ner" toName="text">
    <Label value="PER"/>
    <Label value="ORG"/>
    <Label value="LOC"/>
  </Labels>
  <Text name="text" value="$text"/>
  <Relations>
    <Relation value="works_for"/>
  </Relations>
  <Choices name="certainty" toName="text" perRegion="true">
    <Choice value="sure"/>
    <Choice value="unsure"/>
  </Choices>
</View>
"""
# Annotator quality: recall, chance of a boundary slip, of a label swap, of an extra span.
NER_ANNOTATORS = {
    2: {"recall": 0.97, "slip": 0.04, "swap": 0.02, "extra": 0.03, "unsure": 0.10},
    3: {"recall": 0.93, "slip": 0.08, "swap": 0.04, "extra": 0.05, "unsure": 0.20},
    4: {"recall": 0.80, "slip": 0.20, "swap": 0.12, "extra": 0.15, "unsure": 0.35},
}


def ner_sentence(rng: random.Random) -> tuple[str, list[tuple[int, int, str]]]:
    """A sentence and its true entities ``(start, end, label)``, end exclusive."""
    template = rng.choice(NER_TEMPLATES)
    fills = {"PER": rng.choice(PEOPLE), "ORG": rng.choice(ORGS), "LOC": rng.choice(PLACES)}
    fills["PER2"] = rng.choice([p for p in PEOPLE if p != fills["PER"]])
    text, spans = "", []
    for part in template.replace("}", "{").split("{"):
        if part in fills:
            spans.append((len(text), len(text) + len(fills[part]), part[:3]))
            text += fills[part]
        else:
            text += part
    return text, spans


def ner_annotation(
    rng: random.Random, a: dict, text: str, truth: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """One annotator's spans: some missed, some shifted by a word, some mislabelled, some extra."""
    out = []
    for start, end, label in truth:
        if rng.random() > a["recall"]:
            continue
        if rng.random() < a["slip"]:
            space = text.find(" ", start, end)
            if space > 0:
                start = space + 1 if rng.random() < 0.5 else start
                end = space if start < space else end
        if rng.random() < a["swap"]:
            label = rng.choice([x for x in NER_LABELS if x != label])
        out.append((start, end, label))
    if rng.random() < a["extra"]:
        words = [i for i in range(1, len(text)) if text[i - 1] == " " and text[i].isalpha()]
        start = rng.choice(words)
        end = text.find(" ", start)
        out.append((start, end if end > 0 else len(text) - 1, rng.choice(NER_LABELS)))
    return out


def build_label_studio_ner() -> list[dict]:
    """60 sentences, annotators 2, 3, 4 (4 is the sloppy one); spans, a per-entity certainty
    choice and works_for relations (a PER and an ORG of one sentence)."""
    rng = random.Random(f"{SEED}/label-studio-ner")
    start = datetime(2026, 11, 9, 9, 0, tzinfo=timezone.utc)
    tasks = []
    for k in range(60):
        text, truth = ner_sentence(rng)
        anns = []
        for user, a in NER_ANNOTATORS.items():
            when = start + timedelta(minutes=7 * k + user)
            if rng.random() < 0.03:
                anns.append(
                    {
                        "id": 9000 + 10 * k + user,
                        "completed_by": user,
                        "was_cancelled": True,
                        "ground_truth": False,
                        "result": [],
                        "created_at": iso(when),
                        "updated_at": iso(when),
                    }
                )
                continue
            result, ids = [], {}
            for s, e, label in ner_annotation(rng, a, text, truth):
                region = rid(rng)
                ids.setdefault(label, region)
                value = {"start": s, "end": e, "text": text[s:e]}
                result.append(
                    {
                        "value": {**value, "labels": [label]},
                        "id": region,
                        "from_name": "ner",
                        "to_name": "text",
                        "type": "labels",
                        "origin": "manual",
                    }
                )
                sure = "unsure" if rng.random() < a["unsure"] else "sure"
                result.append(
                    {
                        "value": {**value, "choices": [sure]},
                        "id": region,
                        "from_name": "certainty",
                        "to_name": "text",
                        "type": "choices",
                        "origin": "manual",
                    }
                )
            if "PER" in ids and "ORG" in ids and rng.random() < a["recall"]:
                result.append(
                    {
                        "from_id": ids["PER"],
                        "to_id": ids["ORG"],
                        "type": "relation",
                        "direction": "right",
                        "labels": ["works_for"],
                    }
                )
            anns.append(
                {
                    "id": 9000 + 10 * k + user,
                    "completed_by": user,
                    "was_cancelled": False,
                    "ground_truth": False,
                    "result": result,
                    "created_at": iso(when),
                    "updated_at": iso(when),
                }
            )
        tasks.append(
            {
                "id": 3001 + k,
                "data": {"text": text},
                "annotations": anns,
                "predictions": [],
                "drafts": [],
                "meta": {},
                "project": 8,
            }
        )
    return tasks


BOX_LABELS = ["Car", "Person", "Bicycle"]
BOX_ANNOTATORS = {
    2: {"recall": 0.96, "jitter": 1.0, "swap": 0.02, "extra": 0.03},
    3: {"recall": 0.92, "jitter": 1.5, "swap": 0.03, "extra": 0.05},
    4: {"recall": 0.85, "jitter": 4.0, "swap": 0.08, "extra": 0.10},
}


def build_label_studio_boxes() -> list[dict]:
    """40 street images (640×480), 2–5 objects each, annotators 2, 3, 4: boxes in percent."""
    rng = random.Random(f"{SEED}/label-studio-boxes")
    start = datetime(2026, 11, 10, 9, 0, tzinfo=timezone.utc)
    tasks = []
    for k in range(40):
        truth = []
        for _ in range(rng.randint(2, 5)):
            w, h = rng.uniform(8, 30), rng.uniform(10, 35)
            truth.append(
                (rng.uniform(0, 100 - w), rng.uniform(0, 100 - h), w, h, rng.choice(BOX_LABELS))
            )
        anns = []
        for user, a in BOX_ANNOTATORS.items():
            boxes = []
            for x, y, w, h, label in truth:
                if rng.random() > a["recall"]:
                    continue
                j = [rng.gauss(0, a["jitter"]) for _ in range(4)]
                if rng.random() < a["swap"]:
                    label = rng.choice([b for b in BOX_LABELS if b != label])
                boxes.append((x + j[0], y + j[1], max(1.0, w + j[2]), max(1.0, h + j[3]), label))
            if rng.random() < a["extra"]:
                boxes.append(
                    (rng.uniform(0, 80), rng.uniform(0, 80), 10.0, 12.0, rng.choice(BOX_LABELS))
                )
            result = [
                {
                    "original_width": 640,
                    "original_height": 480,
                    "image_rotation": 0,
                    "value": {
                        "x": round(x, 3),
                        "y": round(y, 3),
                        "width": round(w, 3),
                        "height": round(h, 3),
                        "rotation": 0,
                        "rectanglelabels": [label],
                    },
                    "id": rid(rng),
                    "from_name": "objects",
                    "to_name": "image",
                    "type": "rectanglelabels",
                    "origin": "manual",
                }
                for x, y, w, h, label in boxes
            ]
            when = iso(start + timedelta(minutes=5 * k + user))
            anns.append(
                {
                    "id": 7000 + 10 * k + user,
                    "completed_by": user,
                    "was_cancelled": False,
                    "ground_truth": False,
                    "result": result,
                    "created_at": when,
                    "updated_at": when,
                }
            )
        tasks.append(
            {
                "id": 5001 + k,
                "data": {"image": f"/data/upload/8/street-{k:03d}.jpg"},
                "annotations": anns,
                "predictions": [],
                "drafts": [],
                "meta": {},
                "project": 9,
            }
        )
    return tasks


def build_prodigy_ner() -> list[dict]:
    """``ner.manual`` db-out: 50 sentences × 3 annotators (``_view_id: ner_manual``)."""
    rng = random.Random(f"{SEED}/prodigy-ner")
    start = datetime(2026, 11, 11, tzinfo=timezone.utc)
    names = {2: "news-ana", 3: "news-ben", 4: "news-chen"}
    lines = []
    for k in range(50):
        text, truth = ner_sentence(rng)
        tokens, at = [], 0
        for i, word in enumerate(text.split(" ")):
            tokens.append({"text": word, "start": at, "end": at + len(word), "id": i, "ws": True})
            at += len(word) + 1
        input_hash = hash32("news", text)
        for user, a in NER_ANNOTATORS.items():
            spans = []
            for s, e, label in ner_annotation(rng, a, text, truth):
                first = next(t["id"] for t in tokens if t["end"] > s)
                last = next(t["id"] for t in reversed(tokens) if t["start"] < e)
                spans.append(
                    {"start": s, "end": e, "token_start": first, "token_end": last, "label": label}
                )
            answer = "ignore" if rng.random() < 0.02 else "accept"
            lines.append(
                {
                    "text": text,
                    "_input_hash": input_hash,
                    "_task_hash": hash32("news", text, "ner"),
                    "tokens": tokens,
                    "spans": sorted(spans, key=lambda x: (x["start"], x["end"])),
                    "_view_id": "ner_manual",
                    "answer": answer,
                    "_timestamp": int((start + timedelta(minutes=3 * k + user)).timestamp()),
                    "_annotator_id": names[user],
                    "_session_id": names[user],
                }
            )
    return lines


# --------------------------------------------------------------------------------------------


def write_json(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def write_jsonl(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main() -> None:
    tasks, stats = build_label_studio()
    write_json(HERE / "label-studio" / "export.json", tasks)
    objects = with_user_objects(tasks[:30])
    write_json(HERE / "label-studio" / "export-completed-by-object.json", objects)
    write_text(HERE / "label-studio" / "label_config.xml", LABEL_CONFIG)
    binary = build_prodigy_binary()
    choice = build_prodigy_choice()
    write_jsonl(HERE / "prodigy" / "binary.jsonl", binary)
    write_jsonl(HERE / "prodigy" / "choice.jsonl", choice)
    ner = build_label_studio_ner()
    write_json(HERE / "label-studio-ner" / "export.json", ner)
    write_text(HERE / "label-studio-ner" / "label_config.xml", NER_CONFIG)
    boxes = build_label_studio_boxes()
    write_json(HERE / "label-studio-boxes" / "export.json", boxes)
    prodigy_ner = build_prodigy_ner()
    write_jsonl(HERE / "prodigy" / "ner_manual.jsonl", prodigy_ner)
    print(f"label-studio/export.json: {len(tasks)} tasks, {stats}")
    print(f"label-studio-ner: {len(ner)} tasks; label-studio-boxes: {len(boxes)} tasks")
    print(f"prodigy/ner_manual.jsonl: {len(prodigy_ner)} lines")
    print(f"prodigy/binary.jsonl: {len(binary)} lines; prodigy/choice.jsonl: {len(choice)} lines")


if __name__ == "__main__":
    main()
