"""negviz.ui.navigation.entry: what a page's registry entry says, which URL keys a page takes, and
why a dataset's kind does not apply to a page."""

from negviz.core.kinds import PAIRS_KIND, SENTENCE_PAIRS_KIND
from negviz.core.schema import EXCLUSION, PAIRS
from negviz.ui.navigation.entry import COUNTERFACTUAL_KEYS, SIDEBAR_KEYS, PageEntry, kind_problem


def test_a_page_takes_the_sidebar_keys_and_its_own():
    page = PageEntry("pages/x.py", "x", "X", ":material/star:", "Explore", (PAIRS,), ("pair",))
    assert all(page.takes(k) for k in SIDEBAR_KEYS) and page.takes("pair") and not page.takes("sort")


def test_kind_problem_says_what_the_page_draws_and_what_the_dataset_holds():
    page = PageEntry("pages/x.py", "x", "Pair view", ":material/star:", "Explore", (PAIRS, EXCLUSION))
    assert kind_problem(page, "nevir", PAIRS_KIND) is None
    assert kind_problem(page, "cannot", SENTENCE_PAIRS_KIND) == (
        "Pair view draws NevIR-style contrast pairs, ExcluIR-style exclusion queries; "
        "cannot holds CANNOT-style sentence pairs."
    )
    anything = PageEntry("pages/y.py", "y", "Y", ":material/star:", "Run")  # kinds None: any dataset
    assert kind_problem(anything, "cannot", SENTENCE_PAIRS_KIND) is None


def test_a_page_of_typed_texts_is_never_stopped_for_its_kind():
    stored_only = PageEntry("pages/x.py", "x", "X", ":material/star:", "Explore", (PAIRS,))
    typed = PageEntry("pages/y.py", "y", "Y", ":material/star:", "Explore", (PAIRS,), COUNTERFACTUAL_KEYS, True)
    anything = PageEntry("pages/z.py", "z", "Z", ":material/star:", "Run")
    assert stored_only.guarded and not typed.guarded and not anything.guarded
    assert typed.takes("cf_text") and not stored_only.takes("cf_text")
