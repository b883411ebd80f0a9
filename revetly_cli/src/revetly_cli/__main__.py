from revetly_cli.app import main

main()
