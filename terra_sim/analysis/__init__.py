"""Balance analytics over finished runs: statistics (stats), Parquet tables (tables), plots,
the one-run report (report.build_report) and what-if comparisons (compare.compare_runs)."""
