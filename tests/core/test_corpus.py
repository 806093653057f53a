"""core.corpus: the expansion of an action's templates is deterministic, fills every slot, and the
held-out split takes whole templates."""

from __future__ import annotations

import pytest

from core.corpus import SHARED_SLOTS, CorpusSpec, held_out

SPEC = CorpusSpec(
    templates=("{time}要{task}", "remind me to {task_en} {time_en}", "{who}说{time}见"),
    slots={"who": ("老王", "小李", "妈妈")},
    plain=("帮我记一下",),
    per_template=5,
)


def test_the_expansion_is_the_same_every_time() -> None:
    assert list(SPEC.examples()) == list(SPEC.examples())


def test_every_slot_is_filled_and_every_sentence_names_its_template() -> None:
    examples = list(SPEC.examples())
    assert all("{" not in e.text and "}" not in e.text for e in examples)
    assert {e.template for e in examples} == {*SPEC.templates, *SPEC.plain}
    assert sum(e.template == "{who}说{time}见" for e in examples) == 5


def test_own_slots_override_shared_ones() -> None:
    spec = CorpusSpec(templates=("{task}",), slots={"task": ("只此一件",)}, per_template=3)
    assert all("只此一件" in e.text for e in spec.examples())
    assert "只此一件" not in SHARED_SLOTS["task"]


def test_an_unknown_slot_is_an_error_not_a_silent_gap() -> None:
    with pytest.raises(KeyError, match="nowhere"):
        list(CorpusSpec(templates=("{nowhere}",)).examples())


def test_the_split_is_by_template_text() -> None:
    assert held_out("{time}要{task}") == held_out("{time}要{task}")
    share = sum(held_out(f"template {i}") for i in range(2000)) / 2000
    assert 0.17 <= share <= 0.23
