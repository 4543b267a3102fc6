from terra_sim.cli import main

main()
