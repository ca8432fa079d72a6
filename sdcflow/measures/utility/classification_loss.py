"""``classification_loss``: information loss for classification (Torra (2017), "Data
Privacy: Foundations, New Developments and the Big Data Challenge"; Herranz, Matwin, Nin
& Torra (2010), "Classifying data from protected statistical datasets"): a logistic
regression classifier of the ``target`` variable is trained on the protected data and
tested on the original; the loss is the accuracy it loses against the same classifier
trained on the original. The computation is
:func:`sdcflow.kernels.utility.classification.classification_loss`.

With ``positive`` (a class), the two classifiers' decisions on the original records are
also compared by an asymmetric divergence (Torra 2017): a record the classifier trained
on the protected data puts in the positive class and the one trained on the original
does not is a false positive, the other way round a false negative, each weighted by its
cost (:func:`sdcflow.kernels.utility.asymmetric_divergence.decision_divergence`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd

from ...errors import did_you_mean
from ...kernels.utility.asymmetric_divergence import decision_divergence
from ...kernels.utility.classification import classification_loss
from ...kernels.utility.propensity import main_effects
from ...plugins.registry import Measure, MeasureResult, register, variables_param
from ...plugins.results import COUNT, NAMES, NUMBER, TEXT, record
from ..reference import REFERENCE, same_records
from .categorical_information_loss import shared_codes
from .decision_loss import COST

# (no default: a cost is named only with a positive class)
_COST = {k: v for k, v in COST.items() if k != "default"}

MAX_CLASSES = 100
MAX_PARAMETERS = 2000  # columns of the design matrix


@register
class ClassificationLoss(Measure):
    name = "classification_loss"
    public_params = ("target", "variables", "reference", "positive", "false_positive",
                     "false_negative")
    version = "2"  # the asymmetric divergence of a positive class
    risk_measure = False
    summary = ("Accuracy on the original data of a classifier trained on the protected "
               "data, against one trained on the original.")
    default_roles = ("key", "numeric")
    pairs_records = True
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["target"],
        "properties": {
            "target": {"type": "string",
                       "description": "The class variable the classifier predicts."},
            "variables": variables_param("Predictors (default: every variable with role key "
                                         "or numeric, but the target)."),
            "reference": REFERENCE,
            "positive": {"type": ["string", "integer"],
                         "description": "A class of the target whose decisions are compared "
                                        "by an asymmetric divergence (result 'asymmetric')."},
            "false_positive": {**_COST, "description": "With positive: the cost of an original "
                                                      "record put in the positive class only "
                                                      "by the classifier trained on the "
                                                      "protected data (default 1)."},
            "false_negative": {**_COST, "description": "With positive: the cost of one put "
                                                      "there only by the classifier trained "
                                                      "on the original (default 1)."},
        },
    }

    def named_variables(self, params: Mapping) -> list[tuple[tuple, str]]:
        out = super().named_variables(params)
        if isinstance(params.get("target"), str):
            out.append((("target",), params["target"]))
        return out

    def variables(self, params, meta):
        """The predictors: ``params["variables"]``, else every key or numeric variable but
        the target."""
        if params.get("variables"):
            return list(params["variables"])
        return [n for n in meta.names(*self.default_roles) if n != params.get("target")]

    def reads(self, params, meta):
        return set(self.variables(params, meta)) | {params["target"]}

    def check(self, params, meta):
        target = params["target"]
        if target not in meta.variables:
            if target not in meta.broken:
                yield ("target",), (f"'{target}' is not a declared variable"
                                    f"{did_you_mean(target, meta.variables)}")
            return
        if meta.variables[target].type == "continuous":
            yield ("target",), (f"'{target}' is continuous: the target of a classifier must "
                                "hold classes (categorical, ordinal or integer)")
        names = self.variables(params, meta)
        if target in names:
            yield ("variables",), f"the target '{target}' cannot also be a predictor"
        if not names:
            yield ("variables",), "no predictors: name them or declare key or numeric variables"
        if "positive" not in params and any(k in params for k in ("false_positive",
                                                                    "false_negative")):
            yield ("positive",), ("costs of false positives and negatives need the positive "
                                  "class they are counted for: name it with 'positive'")

    def check_data(self, params, data):
        target = params["target"]
        if target not in data.frame:
            return
        classes = data.frame[target].nunique(dropna=True)
        if classes > MAX_CLASSES:
            yield ("target",), (f"'{target}' has {classes} classes (at most "
                                f"{MAX_CLASSES}): recode it first")
        usable = data.frame[target].notna().to_numpy().copy()
        for name in self.variables(params, data.meta):
            if name in data.frame and pd.api.types.is_numeric_dtype(data.frame[name]):
                usable &= data.frame[name].notna().to_numpy()
        if not usable.any():
            yield ("target",), ("no record has the target and every numeric predictor: "
                                "nothing to train or test the classifier on")

    def result_shape(self, params, meta):
        return record(reference=TEXT, target=TEXT, variables=NAMES, classes=COUNT,
                      records=COUNT, training_records=COUNT, test_records=COUNT,
                      accuracy_original=NUMBER, accuracy_protected=NUMBER, loss=NUMBER,
                      loss_percent=NUMBER, agreement=NUMBER,
                      **({"asymmetric": record(
                          positive=TEXT, false_positive_cost=NUMBER,
                          false_negative_cost=NUMBER, records=COUNT, true_positives=COUNT,
                          false_positives=COUNT, false_negatives=COUNT,
                          true_negatives=COUNT, loss=NUMBER, symmetric_loss=NUMBER,
                          false_positive_rate=NUMBER.with_null(),
                          false_negative_rate=NUMBER.with_null())}
                         if "positive" in params else {}))

    def evaluate(self, data, params, rng, *, original):
        """``accuracy_original`` (trained and tested on the original), ``accuracy_protected``
        (trained on the protected data, tested on the original), ``loss`` (their
        difference), ``loss_percent`` (relative to accuracy_original), ``agreement``
        (share of original records both classifiers put in the same class); per record the
        two predictions (``predicted_original``, ``predicted_protected``: class labels)."""
        names = self.variables(params, data.meta)
        target = params["target"]
        same_records(data, original, self.name)
        for which, ds in (("reference", original), ("protected", data)):
            for name in [*names, target]:
                if name not in ds.frame.columns:
                    raise ValueError(f"'{name}' is not in the {which} data")
        x, keep_x, xp, keep_p = _designs(original, data, names)
        t0, t1, labels = shared_codes(original.frame[target], data.frame[target])
        keep_x &= original.frame[target].notna().to_numpy()
        keep_p &= data.frame[target].notna().to_numpy()
        classes = [label for i, label in enumerate(labels)
                   if (t0[keep_x] == i).any() or (t1[keep_p] == i).any()]
        index = {labels.index(c): k for k, c in enumerate(classes)}
        y = np.array([index[int(c)] for c in t0[keep_x]], dtype=np.int64)
        yp = np.array([index[int(c)] for c in t1[keep_p]], dtype=np.int64)
        if not keep_x.any() or not keep_p.any():
            raise ValueError("no complete records to train or test on")
        result = classification_loss(x[keep_x], y, xp[keep_p], yp, max(len(classes), 2))
        a0, a1 = result.accuracy_original, result.accuracy_protected
        summary = {
            "reference": params["reference"], "target": target, "variables": names,
            "classes": len(classes), "records": len(data),
            "training_records": int(keep_p.sum()), "test_records": int(keep_x.sum()),
            "accuracy_original": a0, "accuracy_protected": a1, "loss": result.loss,
            "loss_percent": 100.0 * result.loss / a0 if a0 > 0 else 0.0,
            "agreement": float((result.predicted_original
                                == result.predicted_protected).mean()),
        }
        if "positive" in params:
            summary["asymmetric"] = _asymmetric(params, classes, result)
        columns = {}
        for which, pred in (("original", result.predicted_original),
                            ("protected", result.predicted_protected)):
            col = pd.Series(pd.NA, index=data.frame.index, dtype="string")
            col.iloc[np.flatnonzero(keep_x)] = [classes[int(k)] for k in pred]
            columns[f"predicted_{which}"] = col
        return MeasureResult(summary, pd.DataFrame(columns, index=data.frame.index))


def _asymmetric(params, classes: list, result) -> dict:
    """The asymmetric divergence of the two classifiers' decisions for the class
    ``params["positive"]`` (module docstring); a class the data do not hold is never
    predicted (every decision negative)."""
    positive = str(params["positive"])
    labels = [str(c) for c in classes]
    k = labels.index(positive) if positive in labels else -1
    costs = {k: float(params.get(k, 1)) for k in ("false_positive", "false_negative")}
    out = decision_divergence(result.predicted_original == k,
                              result.predicted_protected == k, **costs)
    return {"positive": positive, "false_positive_cost": costs["false_positive"],
            "false_negative_cost": costs["false_negative"], **out}


def _designs(original, data, names) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Design matrices (intercept, numeric predictors standardised with the original's
    means and standard deviations, indicators of categories over the union of both data
    sets, a missing category its own) of the original and the protected data, and which
    records have every numeric predictor."""
    num0, num1, cat0, cat1, cards = [], [], [], [], []
    for name in names:
        a, b = original.frame[name], data.frame[name]
        if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
            u = a.to_numpy(dtype=float, na_value=np.nan)
            v = b.to_numpy(dtype=float, na_value=np.nan)
            seen = u[~np.isnan(u)]
            mean = float(seen.mean()) if seen.size else 0.0
            sd = float(seen.std()) if seen.size > 1 else 0.0
            sd = sd if sd > 0 else 1.0
            num0.append((u - mean) / sd)
            num1.append((v - mean) / sd)
        else:
            f, g, labels = shared_codes(a, b)
            cat0.append(f)
            cat1.append(g)
            cards.append(len(labels))
    out = []
    for num, cat, n in ((num0, cat0, len(original)), (num1, cat1, len(data))):
        nm = np.column_stack(num) if num else np.empty((n, 0))
        keep = ~np.isnan(nm).any(axis=1)
        codes = np.column_stack(cat).astype(np.int64) if cat else np.empty((n, 0), np.int64)
        main = main_effects(np.nan_to_num(nm), codes, cards)
        if main.shape[1] + 1 > MAX_PARAMETERS:
            raise ValueError(f"{main.shape[1] + 1} parameters (at most {MAX_PARAMETERS}): "
                             "use fewer predictors or recode them")
        out.extend([np.column_stack([np.ones(n), main]), keep])
    return out[0], out[1], out[2], out[3]
