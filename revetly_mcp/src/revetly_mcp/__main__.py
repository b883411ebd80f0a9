from revetly_mcp.cli import main

main()
