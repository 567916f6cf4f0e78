"""negviz.finetune.train: what a training step computes. The loss over doubled candidates by hand,
and the late-interaction trainer's MaxSim equal to the maxsim family's, one epoch of it loading
back as that family."""

from __future__ import annotations

import math

import numpy as np
import pytest

from negviz import finetune as ft
from tests.finetune.test_run import TINY, sqlite_store  # noqa: F401  (fixtures)


def test_doubled_candidates_only_add_log_two_to_the_loss():
    """Each document is a positive once and a hard negative once: MNRL over the doubled
    candidates equals InfoNCE over the unique documents plus log 2."""
    torch = pytest.importorskip("torch")
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    g = torch.Generator().manual_seed(0)
    q, d = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g)
    doubled = [q, d, torch.cat([d[3:], d[:3]])]
    loss = MultipleNegativesRankingLoss(model=None).compute_loss_from_embeddings(doubled, None)
    qn, dn = torch.nn.functional.normalize(q, dim=-1), torch.nn.functional.normalize(d, dim=-1)
    plain = torch.nn.functional.cross_entropy(20 * qn @ dn.T, torch.arange(6))
    assert float(loss) == pytest.approx(float(plain) + math.log(2), abs=1e-5)


def test_one_late_interaction_epoch_loads_as_maxsim(tiny_model_dir, sqlite_store, tmp_path):
    from negviz.analyses.playground import late_interaction_spec
    from negviz.evaluation.catalog import load_scorer
    from negviz.finetune.train import MaxSimTrainer

    model = str(tiny_model_dir("maxsim"))
    spec = ft.FinetuneSpec(model, family="late-interaction", **TINY)
    heldout = ft.load_training_data(spec).heldout.head(3)
    # The trainer's MaxSim is the family's MaxSim (same masks, same sum of row maxima).
    trainer = MaxSimTrainer(model, spec, "cpu", 1, {})
    trainer.module.eval()
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        q, qm = trainer.encode(heldout["q1"].tolist(), "query")
        d, dm = trainer.encode(heldout["d1"].tolist(), "document")
        mine = trainer.maxsim_scores(q, qm, d, dm).diagonal().numpy()
    family = load_scorer(f"{model}[family=maxsim]", device="cpu").score(heldout["q1"].tolist(), heldout["d1"].tolist())
    assert np.allclose(mine, family, atol=1e-4)

    result = ft.run_finetune(spec, sqlite_store, save_dir=tmp_path)
    assert result.status == "complete" and result.epochs["epoch"].tolist() == [0, 1]
    run = sqlite_store.get_run(result.run_id)
    assert run.family == "maxsim" and "mean MaxSim token vectors" in run.options["cosine"]
    after = late_interaction_spec(result.checkpoint)  # what the MaxSim explorer's "After" box does
    assert after.endswith("[family=maxsim]")
    matrix = load_scorer(after, device="cpu").token_matrix(heldout["q1"].iloc[0], heldout["d1"].iloc[0])
    assert matrix.score == pytest.approx(float(matrix.row_max.sum()))


def test_freezing_all_but_the_top_layer_leaves_only_its_parameters_trainable(tiny_model_dir):
    from transformers import AutoModel

    from negviz.finetune.train import freeze_all_but_top

    encoder = AutoModel.from_pretrained(str(tiny_model_dir("bi-encoder")))
    everything = freeze_all_but_top(encoder, 0)
    assert everything == [n for n, _ in encoder.named_parameters()]  # 0: the whole model trains
    top = encoder.config.num_hidden_layers - 1
    trainable = freeze_all_but_top(encoder, 1)
    assert trainable and all(n.startswith(f"encoder.layer.{top}.") for n in trainable)
    assert [n for n, p in encoder.named_parameters() if p.requires_grad] == trainable
