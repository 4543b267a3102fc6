from terra_sim.cli import main

# Guarded: a Dask LocalCluster spawns its workers, which import the main module again.
if __name__ == "__main__":
    main()
