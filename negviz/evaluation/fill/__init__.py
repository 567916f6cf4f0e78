"""Filling the board beyond one process: specs cut into shards (shards), the shards' scores kept
until a spec's last one is in and its run is committed once (commit), a plan of the work
(planning), run here or on a Ray cluster (executor, on_ray)."""
