"""What is known about a dataset's items, read and exchanged: the one read model (dataset_view),
people's pair labels (annotations), and results to and from outside negviz (external/: the
notebook API, imported score files, exported runs)."""
