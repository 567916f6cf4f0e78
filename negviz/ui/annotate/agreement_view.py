"""Krippendorff's alpha on the Annotations page (negviz.analyses.agreement): per label, and per
negation type on request, with its bootstrap CI."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import agreement
from negviz.core import metrics
from negviz.ui import inspector_data


def alpha_section(dataset: str, latest: pd.DataFrame, who: list[str]) -> None:
    """The alpha table of the chosen annotators' latest labels."""
    by_type = st.toggle("Krippendorff's alpha per negation type", key="alpha_by_type", bind="query-params")
    groups = inspector_data.automatic_types(dataset).set_index("item_id")["type"] if by_type else None
    alphas = agreement.alpha_table(latest, who, groups=groups)
    if warning := agreement.few_items_warning(alphas):
        st.warning(warning)
    st.dataframe(
        alphas,
        hide_index=True,
        key="alpha",
        placeholder="undefined",
        column_config={
            "alpha": st.column_config.NumberColumn(
                agreement.KRIPPENDORFF,
                format="%.3f",
                help="Missing labels allowed: every pair two or more of the chosen annotators labelled counts.",
            ),
            "ci_low": st.column_config.NumberColumn("95% CI low", format="%.3f"),
            "ci_high": st.column_config.NumberColumn("95% CI high", format="%.3f", help=metrics.BOOTSTRAP_NOTE + "."),
        },
    )
