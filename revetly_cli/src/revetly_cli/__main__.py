from revetly_cli import main

main()
