"""The noise detector: does a background agent slow MPI programs? (docs/noise-schema.md)."""
