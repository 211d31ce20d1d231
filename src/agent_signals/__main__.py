from agent_signals.cli import main

main()
