"""Cue influence: over a whole dataset, how much of a model's token attribution falls on the
negation cue, by verdict and by negation type, with the pairs behind each bin; and where, layer
by layer, an encoder's two documents stop differing (negviz.ui.cue_influence.cue_influence_view)."""

import streamlit as st
from negviz.ui.cue_influence import cue_influence_view as view
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import pickers

st.title("Cue influence")
name = pickers.current_dataset()
ds = dataset_view(name).dataset
view.shares(name, ds)
view.fading(name, ds)
