"""The foundations every other package stands on: dataset kinds and their tables (kinds, schema),
metrics as objects, verdicts (outcomes), typed options, errors, paths and devices, the on-disk
cache, the lazy name registry, progress lines, JSON values, and the pages and links between them
(page_registry, links). Imports nothing of negviz above it."""
