"""Running a tournament, from its config to its part files.

The data's path: `config` reads and checks a run's config (RunConfig); `plan` turns its
content into who plays game i (a GameSpec from the seed and i alone); `runner.run_tournament`
opens and locks the run folder (terra_sim.store), writes the manifest and hands the games still
to play to an `executor` (the local worker pool of `local` and `workers`, or a Dask cluster,
`dask_executor`), in chunks sized by `chunk.ChunkSizer`; a worker plays a chunk
(`chunk.play_chunk`) and encodes its rows as part files, which the executor writes into the
run folder as they come; `until` decides, batch by batch, when a run until sure has played
enough. The report (terra_sim.analysis) reads the part files. `calibrate`, `ladder` and `tune`
are jobs made of runs (or of games played the same way); `bench` measures the runner, and
`logs` and `replay` bring real games in and replay stored ones.
"""
