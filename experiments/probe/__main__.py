from nesyworld.experiments.probe.transfer_probe import main

main()
