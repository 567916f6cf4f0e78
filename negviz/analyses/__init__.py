"""Analyses: pure functions from stored scores and dataset frames to the tables pages draw."""
