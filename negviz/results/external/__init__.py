"""Models and scores from outside negviz: the notebook API (``negviz.evaluate``), score files
computed elsewhere (``negviz import-scores``), and standard files out (``negviz export-run``)."""
