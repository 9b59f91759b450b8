"""Real-data benchmarks of metric-learn-scml (not part of the installed package)."""
