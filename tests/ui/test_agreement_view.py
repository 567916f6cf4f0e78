"""negviz.ui.annotate.agreement_view: the Annotations page's Krippendorff's alpha table, in AppTest over
two annotators' hand-made labels (alpha computed by hand), with the few-items warning."""

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

# Two annotators, three pairs: the same negation type everywhere (alpha undefined: no variation),
# validity agreed on a and b, not on c.
LATEST = pd.DataFrame(
    {
        "item_id": ["a", "b", "c"] * 2,
        "annotator": ["ana"] * 3 + ["bo"] * 3,
        "negation_type": ["affixal"] * 6,
        "validity": ["valid", "invalid", "valid", "valid", "invalid", "invalid"],
        "query_ambiguous": [False] * 6,
    }
)


def _section(latest):
    from negviz.ui.annotate.agreement_view import alpha_section

    alpha_section("nevir", latest, ["ana", "bo"])


def test_the_alpha_table_holds_each_labels_alpha_and_warns_of_few_items():
    at = AppTest.from_function(_section, args=(LATEST,), default_timeout=60).run()  # 1,000 bootstrap draws per label
    assert not at.exception
    table = at.dataframe[0].value.set_index("label")
    # validity by hand: coincidences o(v,v)=2, o(i,i)=2, o(v,i)=o(i,v)=1, n=6, n_v=n_i=3;
    # D_o = 2/6, D_e = 2*3*3/(6*5) = 0.6, alpha = 1 - (1/3)/0.6 = 4/9
    assert np.isclose(table.loc["validity", "alpha"], 4 / 9)
    assert np.isnan(table.loc["negation_type", "alpha"])  # one value only: agreement undefined
    assert list(table["pairable_items"]) == [3, 3, 3] and set(table["items"]) == {"all"}
    (warning,) = at.warning
    assert warning.value.startswith(
        "1 of these alphas rest on fewer than 20 pairs labelled by two or more annotators (as few as 3)"
    )
    assert at.toggle(key="alpha_by_type").value is False
