"""A run on disk: its folder's layout and manifest (`rundir`), its lock (`runlock`), its tables'
columns and part-file encoding (`schema`, `parquet`), and the merging of many small parts into
few (`compaction`). Nothing here plays a game."""
