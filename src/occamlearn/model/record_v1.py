"""Reading version-1 model files: their fields renamed into version 2's, nothing else.

Version 1 (occamlearn before ``FittedModel``) wrote what each estimator had:

* trees: the fields of version 2 without ``"provenance"``, and Algorithm 3's
  ``"candidate_trees"`` ([tree, accuracy] pairs, the model's tree among them), ``"best_trees"``
  (trees again) and ``"selection_stratified"`` -- every minimum tree file held its tree
  three times, also when Algorithm 3 was not used;
* decision lists: ``"classes"`` as a plain list beside ``"classes_dtype"``, the chosen
  direction as ``"direction_chosen"``, and no column checks.

``upgrade`` returns the same document in version 2's layout (the candidates' copy of the
model becomes ``null``, a plain fit's one-candidate selection is dropped), so one reader
checks both versions. Missing or malformed fields are left for that reader to name.
"""

from __future__ import annotations

__all__ = ["upgrade"]


def upgrade(data: dict) -> dict:
    """Version-1 model file -> the same content in version 2's layout."""
    out = dict(data, version=2)
    if data.get("model") == "DecisionListClassifier":
        if "classes" in out and "classes_dtype" in out:
            out["classes"] = {"dtype": out.pop("classes_dtype"), "values": out["classes"]}
        if "direction_chosen" in out:
            out["direction"] = out.pop("direction_chosen")
        return out
    if "candidate_trees" in out:
        selection = _selection(out.pop("candidate_trees"), out.pop("best_trees", None),
                               out.pop("selection_stratified", None), out.get("tree"))
        if selection is not None:
            out["selection"] = selection
    return out


def _selection(candidates, best, stratified, tree):
    """Version 2's ``"selection"`` (None for a plain fit), or the fields as they came when
    they are not what version 1 wrote (the reader then names the field)."""
    if not isinstance(candidates, list) or not isinstance(best, list):
        return {"candidates": candidates, "best": best, "stratified": stratified}
    trees = [pair[0] if isinstance(pair, list) and pair else None for pair in candidates]
    chosen = next((k for k, t in enumerate(trees) if t == tree), None)
    indices = [next((k for k, t in enumerate(trees) if t == b), -1) for b in best]
    plain = (chosen == 0 and len(candidates) == 1 and indices == [0] and stratified is True
             and isinstance(candidates[0], list) and len(candidates[0]) == 2
             and candidates[0][1] == 1.0)
    if plain:
        return None
    pairs = [[None if k == chosen else pair[0], pair[1]] if isinstance(pair, list)
             and len(pair) == 2 else pair for k, pair in enumerate(candidates)]
    return {"candidates": pairs, "best": indices, "stratified": stratified}
